//! Every process one sandboxed run started, on Windows: a Job Object.
//!
//! The child is created suspended, put in a fresh job that kills every member when
//! its last handle closes (`JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE`), then resumed: its
//! children and theirs are born in the job, and no process can leave it (breakaway is
//! not allowed). Stopping the run terminates the job; the server's exit closes the
//! handle, which does the same. Unlike Unix, processes a finished call left running
//! (`start /b server`) end with the call, since the tree is dropped with it.

use windows_sys::Win32::System::Diagnostics::ToolHelp::{
    CreateToolhelp32Snapshot, TH32CS_SNAPTHREAD, THREADENTRY32, Thread32First, Thread32Next,
};
use windows_sys::Win32::System::JobObjects::{
    AssignProcessToJobObject, CreateJobObjectW, JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
    JOBOBJECT_BASIC_ACCOUNTING_INFORMATION, JOBOBJECT_EXTENDED_LIMIT_INFORMATION,
    JobObjectBasicAccountingInformation, JobObjectExtendedLimitInformation,
    QueryInformationJobObject, SetInformationJobObject, TerminateJobObject,
};
use windows_sys::Win32::System::Threading::{
    OpenProcess, OpenThread, PROCESS_SET_QUOTA, PROCESS_TERMINATE, ResumeThread,
    THREAD_SUSPEND_RESUME,
};

use super::table::Handle;

/// The exit code the members of a stopped run end with.
const KILLED_EXIT_CODE: u32 = 1;

/// The processes of one run: its job.
pub struct ProcessTree {
    leader: u32,
    job: Option<Handle>,
}

// SAFETY: a job handle is a kernel object reference usable from any thread; the
// calls made on it (query, terminate, close) are thread-safe.
unsafe impl Send for ProcessTree {}
// SAFETY: as above.
unsafe impl Sync for ProcessTree {}

impl std::fmt::Debug for ProcessTree {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProcessTree")
            .field("leader", &self.leader)
            .field("job", &self.job.is_some())
            .finish()
    }
}

/// A job that kills its members when its last handle closes.
fn kill_on_close_job() -> std::io::Result<Handle> {
    // SAFETY: no attributes, no name; the result is checked.
    let job = Handle::valid(unsafe { CreateJobObjectW(std::ptr::null(), std::ptr::null()) })
        .ok_or_else(std::io::Error::last_os_error)?;
    // SAFETY: plain data; zeroed is a valid value.
    let mut limits: JOBOBJECT_EXTENDED_LIMIT_INFORMATION = unsafe { std::mem::zeroed() };
    limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
    // SAFETY: the structure and size match the information class.
    let ok = unsafe {
        SetInformationJobObject(
            job.0,
            JobObjectExtendedLimitInformation,
            (&limits as *const JOBOBJECT_EXTENDED_LIMIT_INFORMATION).cast(),
            std::mem::size_of::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>() as u32,
        )
    } != 0;
    if !ok {
        return Err(std::io::Error::last_os_error());
    }
    Ok(job)
}

/// Resumes every thread of a process created suspended (there is one).
fn resume(pid: u32) -> std::io::Result<()> {
    // SAFETY: plain call; the result is checked.
    let snap = Handle::valid(unsafe { CreateToolhelp32Snapshot(TH32CS_SNAPTHREAD, 0) })
        .ok_or_else(std::io::Error::last_os_error)?;
    let mut entry = THREADENTRY32 {
        dwSize: std::mem::size_of::<THREADENTRY32>() as u32,
        ..Default::default()
    };
    let mut resumed = 0;
    // SAFETY: `entry` has dwSize set, as the API requires.
    let mut more = unsafe { Thread32First(snap.0, &mut entry) } != 0;
    while more {
        if entry.th32OwnerProcessID == pid {
            // SAFETY: plain call; the result is checked.
            if let Some(thread) =
                Handle::valid(unsafe { OpenThread(THREAD_SUSPEND_RESUME, 0, entry.th32ThreadID) })
            {
                // SAFETY: a thread handle with suspend/resume rights.
                if unsafe { ResumeThread(thread.0) } != u32::MAX {
                    resumed += 1;
                }
            }
        }
        // SAFETY: as above.
        more = unsafe { Thread32Next(snap.0, &mut entry) } != 0;
    }
    if resumed == 0 {
        return Err(std::io::Error::other(format!(
            "could not resume process {pid}"
        )));
    }
    Ok(())
}

impl ProcessTree {
    /// Puts a child started by [`super::command`] (suspended) in its own job and lets
    /// it run. On an error the caller kills the child.
    pub fn attach(child: &tokio::process::Child) -> std::io::Result<ProcessTree> {
        let pid = child.id().unwrap_or(0);
        let process = child
            .raw_handle()
            .ok_or_else(|| std::io::Error::other("the child has already exited"))?;
        let job = kill_on_close_job()?;
        // SAFETY: both handles are valid; the process handle is the child's own.
        if unsafe { AssignProcessToJobObject(job.0, process as _) } == 0 {
            return Err(std::io::Error::last_os_error());
        }
        resume(pid)?;
        Ok(ProcessTree {
            leader: pid,
            job: Some(job),
        })
    }

    /// A tree for a process started elsewhere: it is put in a job when this process
    /// may (else the tree sees nothing alive and stops nothing).
    pub fn of_pid(pid: u32) -> ProcessTree {
        let job = (|| {
            // SAFETY: plain call; the result is checked.
            let process = Handle::valid(unsafe {
                OpenProcess(PROCESS_SET_QUOTA | PROCESS_TERMINATE, 0, pid)
            })?;
            let job = kill_on_close_job().ok()?;
            // SAFETY: both handles are valid.
            (unsafe { AssignProcessToJobObject(job.0, process.0) } != 0).then_some(job)
        })();
        ProcessTree { leader: pid, job }
    }

    pub fn leader(&self) -> u32 {
        self.leader
    }

    /// Whether any process of the job still runs.
    pub fn any_alive(&self) -> bool {
        let Some(job) = &self.job else {
            return false;
        };
        // SAFETY: plain data; zeroed is a valid value.
        let mut info: JOBOBJECT_BASIC_ACCOUNTING_INFORMATION = unsafe { std::mem::zeroed() };
        // SAFETY: the structure and size match the information class.
        let ok = unsafe {
            QueryInformationJobObject(
                job.0,
                JobObjectBasicAccountingInformation,
                (&mut info as *mut JOBOBJECT_BASIC_ACCOUNTING_INFORMATION).cast(),
                std::mem::size_of::<JOBOBJECT_BASIC_ACCOUNTING_INFORMATION>() as u32,
                std::ptr::null_mut(),
            )
        } != 0;
        ok && info.ActiveProcesses > 0
    }

    /// Windows has no polite request a windowless process would hear: the job ends.
    pub fn terminate(&self) {
        self.kill_all();
    }

    /// Ends every process of the job.
    pub fn kill_all(&self) {
        if let Some(job) = &self.job {
            // SAFETY: a job handle this value owns.
            unsafe { TerminateJobObject(job.0, KILLED_EXIT_CODE) };
        }
    }
}
