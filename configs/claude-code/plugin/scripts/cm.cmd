@echo off
rem The plugin's way to cm on Windows (docs/adr/0043-windows-plugin-launchers.md), the twin
rem of scripts/cm for hosts that start a plugin's commands through cmd.exe or resolve a
rem command through PATHEXT (scripts\cm then names this file). cm.exe on PATH; else the
rem binary of the npm platform package beside npm's cm.cmd or under `npm root -g`, so no
rem Node starts; else npm's cm.cmd itself. When none is there, `serve` prints one line
rem saying how to install cm (stderr, exit 1) and a hook fails open: nothing on stdout,
rem exit 0, the same line in hook-errors.log.
setlocal EnableExtensions DisableDelayedExpansion
set "missing=context-mode: cm is not installed (not on PATH, no npm package @context-mode/cm-*); install it with: npm install -g context-mode"
set "platform=win32-x64"
set "found="
set "shim="
for %%I in (cm.exe) do set "found=%%~$PATH:I"
if defined found goto run
rem npm's cm.cmd starts Node to find the platform binary: take that binary directly.
for %%I in (cm.cmd) do set "shim=%%~$PATH:I"
if defined shim for %%I in ("%shim%") do call :native_in "%%~dpInode_modules"
if defined found goto run
set "root="
for /f "delims=" %%R in ('npm root -g 2^>nul') do set "root=%%R"
if defined root call :native_in "%root%"
if defined found goto run
if defined shim set "found=%shim%"
if defined found goto run
if /i "%~1"=="hook" goto fail_open
>&2 echo %missing%
exit /b 1

:run
rem `call` so a .cmd (npm's launcher) returns here with its exit code, as cm.exe does.
call "%found%" %*
exit /b %ERRORLEVEL%

rem The platform package's binary under one node_modules folder: a global install keeps
rem it beside the launcher package or inside it.
:native_in
if exist "%~1\@context-mode\cm-%platform%\bin\cm.exe" set "found=%~1\@context-mode\cm-%platform%\bin\cm.exe"
if defined found exit /b 0
if exist "%~1\context-mode\node_modules\@context-mode\cm-%platform%\bin\cm.exe" set "found=%~1\context-mode\node_modules\@context-mode\cm-%platform%\bin\cm.exe"
exit /b 0

:fail_open
rem Drain the hook's JSON (a writer must never meet a closed pipe), answer nothing, and
rem leave one line where cm logs hook failures: CONTEXT_MODE_DIR when absolute, else
rem %USERPROFILE%\.context-mode. The stamp is RFC 3339 UTC as cm writes it (doctor counts
rem lines by it); cmd has no UTC clock, so PowerShell gives it.
findstr "^" >nul 2>nul
set "data=%USERPROFILE%\.context-mode"
set "dir=%CONTEXT_MODE_DIR%"
if defined dir if "%dir:~1,1%"==":" set "data=%dir%"
if defined dir if "%dir:~0,2%"=="\\" set "data=%dir%"
set "stamp="
for /f "usebackq delims=" %%T in (`powershell -NoProfile -NonInteractive -Command "[DateTime]::UtcNow.ToString('s')+'Z'" 2^>nul`) do set "stamp=%%T"
if not defined stamp set "stamp=unknown-time"
set "agent=%~2"
if not defined agent set "agent=?"
set "event=%~3"
if not defined event set "event=?"
if not exist "%data%\" mkdir "%data%" >nul 2>nul
>>"%data%\hook-errors.log" echo %stamp% %agent% %event%: %missing%
exit /b 0
