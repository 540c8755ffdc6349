//! Logs go to `<data dir>/convo/convo.log` via `tracing`, never to the screen and never with
//! the key (nothing in convo logs it; `ApiKey`'s `Debug` is masked anyway).

use std::fs::OpenOptions;
use std::path::PathBuf;
use std::sync::Mutex;

use tracing_subscriber::EnvFilter;

/// The log file's path, if the platform has a data dir.
pub fn log_path() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "convo").map(|d| d.data_dir().join("convo.log"))
}

/// Starts logging to the file; level from `CONVO_LOG` (default `convo=info`). Failing to open
/// the file only means no log: the program goes on.
pub fn init() -> Option<PathBuf> {
    let path = std::env::var_os("CONVO_LOG_FILE")
        .map(PathBuf::from)
        .or_else(log_path)?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).ok()?;
    }
    let mut open = OpenOptions::new();
    open.create(true).append(true);
    // Owner only, as the store: the log names views, queries and the service's errors.
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut open, 0o600);
    let file = open.open(&path).ok()?;
    // A log an older convo created 0644 is made owner-only too.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if let Ok(m) = file.metadata()
            && m.permissions().mode() & 0o077 != 0
        {
            let _ = file.set_permissions(std::fs::Permissions::from_mode(0o600));
        }
    }
    let filter =
        EnvFilter::try_from_env("CONVO_LOG").unwrap_or_else(|_| EnvFilter::new("convo=info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(Mutex::new(file))
        .with_ansi(false)
        .try_init()
        .ok()?;
    Some(path)
}
