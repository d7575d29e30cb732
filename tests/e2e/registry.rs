//! A static npm registry on 127.0.0.1 serving the tarballs `cargo xtask dist` packed, so
//! the hosts' own install commands (`opencode plugin`, `pi install npm:`, `omp plugin
//! install`) fetch `context-mode` the way they would from npmjs.org, without the network.
//! npm (Pi, and OpenCode's built-in installer) and Bun (OMP) all take the registry from
//! `npm_config_registry`. Each package has one packument (`GET /<name>`, the scope's `/`
//! also as `%2f`) whose one version is the packed package.json with `dist.tarball`
//! pointing back here; every other name is a 404, which npm and Bun take as "no such
//! package" (the launcher's other platforms are optional dependencies, so they are
//! skipped).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use crate::http::{Reply, Server};

pub struct Registry {
    server: Server,
}

impl Registry {
    /// Serves `tarballs`, each of which `npm pack` made from a folder `<npm>/build/*/`
    /// (`xtask`'s layout), whose package.json is the manifest served.
    pub fn start(tarballs: &[PathBuf]) -> Registry {
        let base: Arc<OnceLock<String>> = Arc::default();
        let packages: BTreeMap<String, (serde_json::Value, PathBuf)> = tarballs
            .iter()
            .filter_map(|tarball| Some((manifest_of(tarball)?, tarball.clone())))
            .filter_map(|(m, t)| Some((m["name"].as_str()?.to_owned(), (m, t))))
            .collect();
        let served = Arc::clone(&base);
        let server = Server::start(Arc::new(move |request| {
            let path = request.path().replace("%2f", "/").replace("%2F", "/");
            let base = served.get().map(String::as_str).unwrap_or_default();
            if let Some(file) = path.strip_prefix("/-/") {
                let found = packages.values().find(|(_, t)| file_name(t) == file);
                return match found.and_then(|(_, t)| std::fs::read(t).ok()) {
                    Some(body) => Reply {
                        status: 200,
                        content_type: "application/octet-stream",
                        body,
                    },
                    None => not_found(),
                };
            }
            match packages.get(path.trim_start_matches('/')) {
                Some((manifest, tarball)) => Reply::json(&packument(manifest, base, tarball)),
                None => not_found(),
            }
        }));
        let _ = base.set(server.base());
        Registry { server }
    }

    /// What `npm_config_registry` is set to.
    pub fn url(&self) -> String {
        format!("{}/", self.server.base())
    }
}

fn packument(manifest: &serde_json::Value, base: &str, tarball: &Path) -> serde_json::Value {
    let version = manifest["version"].as_str().unwrap_or_default();
    let mut entry = manifest.clone();
    entry["dist"] = serde_json::json!({ "tarball": format!("{base}/-/{}", file_name(tarball)) });
    serde_json::json!({
        "name": manifest["name"],
        "dist-tags": { "latest": version },
        "versions": { version: entry },
    })
}

fn not_found() -> Reply {
    Reply {
        status: 404,
        content_type: "application/json",
        body: br#"{"error":"not found"}"#.to_vec(),
    }
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The package.json the tarball was packed from: `npm pack` names `@scope/name@v`
/// `scope-name-v.tgz`, so the build folder whose manifest gives that name is the one.
fn manifest_of(tarball: &Path) -> Option<serde_json::Value> {
    let build = tarball.parent()?.join("build");
    std::fs::read_dir(build)
        .ok()?
        .flatten()
        .filter_map(|dir| std::fs::read_to_string(dir.path().join("package.json")).ok())
        .filter_map(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .find(|m| {
            let name = m["name"].as_str().unwrap_or_default();
            let packed = format!(
                "{}-{}.tgz",
                name.trim_start_matches('@').replace('/', "-"),
                m["version"].as_str().unwrap_or_default()
            );
            file_name(tarball) == packed
        })
}
