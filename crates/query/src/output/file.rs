//! Export files: they hold personal data typed by strangers, so they are created new (an
//! existing file is never replaced), readable by their owner only (mode 0600), and never left
//! half written: a write that fails (disk full, the directory removed) removes the partial
//! file and says so, and the same path can be used again.
//!
//! [`ExportFile`] streams (write as the rows come, then [`ExportFile::finish`]);
//! [`write_new`] writes a whole buffer. Both are blocking: run them off the UI thread.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use convo_text as text;

/// What happened to a partial file after a failed write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Removal {
    /// It was removed.
    Removed,
    /// It was already gone (its directory removed under it, or the file itself).
    AlreadyGone,
    /// Removing it failed: the user must delete it.
    Failed(String),
}

impl std::fmt::Display for Removal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Removal::Removed => f.write_str("the partial file was removed"),
            Removal::AlreadyGone => f.write_str("no partial file is left"),
            Removal::Failed(e) => write!(f, "the partial file could NOT be removed ({e})"),
        }
    }
}

/// Why an export file was not written. Paths are shown sanitised, on one line.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The path exists: convo never replaces a file.
    #[error("{path} exists: not overwritten")]
    Exists { path: String },
    /// The file could not be created (no such directory, no permission, …).
    #[error("cannot create {path}: {source}")]
    Create { path: String, source: io::Error },
    /// Writing failed part way; the partial file was dealt with as `removal` says.
    #[error("writing {path} failed: {source}; {removal}")]
    Write {
        path: String,
        source: io::Error,
        removal: Removal,
    },
}

fn shown(path: &Path) -> String {
    text::one_line(&path.display().to_string(), 200)
}

/// An export file being written. Dropped without [`finish`](Self::finish) (an error, an
/// abandoned export, a panic), it removes itself.
pub struct ExportFile {
    path: PathBuf,
    out: Option<BufWriter<File>>,
    written: u64,
}

impl ExportFile {
    /// Creates `path`, which must not exist, readable and writable by its owner only.
    pub fn create(path: &Path) -> Result<ExportFile, ExportError> {
        let mut o = std::fs::OpenOptions::new();
        o.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            o.mode(0o600);
        }
        match o.open(path) {
            Ok(f) => Ok(ExportFile {
                path: path.to_path_buf(),
                out: Some(BufWriter::with_capacity(64 * 1024, f)),
                written: 0,
            }),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                Err(ExportError::Exists { path: shown(path) })
            }
            Err(source) => Err(ExportError::Create {
                path: shown(path),
                source,
            }),
        }
    }

    /// The path being written.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Bytes written so far (buffered ones included).
    pub fn written(&self) -> u64 {
        self.written
    }

    /// Appends `bytes`. On failure the partial file is removed and the error says so; the
    /// export is over (later calls fail too).
    pub fn write_all(&mut self, bytes: &[u8]) -> Result<(), ExportError> {
        let r = match self.out.as_mut() {
            Some(w) => w.write_all(bytes),
            None => Err(io::Error::other("the export was already abandoned")),
        };
        match r {
            Ok(()) => {
                self.written += bytes.len() as u64;
                Ok(())
            }
            Err(e) => Err(self.fail(e)),
        }
    }

    /// Flushes, syncs to the disk (a full disk may only say so now) and checks the file is
    /// still where it was created. Returns the bytes written.
    pub fn finish(mut self) -> Result<u64, ExportError> {
        let Some(mut w) = self.out.take() else {
            return Err(self.fail(io::Error::other("the export was already abandoned")));
        };
        let result = w
            .flush()
            .and_then(|()| w.get_ref().sync_all())
            .and_then(|()| still_there(w.get_ref(), &self.path));
        self.out = Some(w);
        match result {
            Ok(()) => {
                self.out = None; // done: Drop leaves the file alone
                Ok(self.written)
            }
            Err(e) => Err(self.fail(e)),
        }
    }

    /// Stops the export and removes the partial file; says what became of it.
    pub fn abandon(mut self) -> Removal {
        self.remove()
    }

    fn fail(&mut self, source: io::Error) -> ExportError {
        ExportError::Write {
            path: shown(&self.path),
            source,
            removal: self.remove(),
        }
    }

    fn remove(&mut self) -> Removal {
        let Some(w) = self.out.take() else {
            return Removal::AlreadyGone;
        };
        // Dropping the writer flushes what it holds; on a full disk that fails, which is fine:
        // the file goes anyway.
        let (f, _) = w.into_parts();
        drop(f);
        match std::fs::remove_file(&self.path) {
            Ok(()) => Removal::Removed,
            Err(e) if e.kind() == io::ErrorKind::NotFound => Removal::AlreadyGone,
            Err(e) => Removal::Failed(e.to_string()),
        }
    }
}

impl Drop for ExportFile {
    fn drop(&mut self) {
        if self.out.is_some() {
            self.remove();
        }
    }
}

/// The open file is still the one at `path`: a directory removed during the export (or the
/// file itself) leaves the writes going to an inode nobody can reach.
fn still_there(f: &File, path: &Path) -> io::Result<()> {
    let gone = || {
        io::Error::new(
            io::ErrorKind::NotFound,
            "the file was removed while it was written (was its directory deleted?)",
        )
    };
    let at_path = std::fs::metadata(path).map_err(|_| gone())?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let open = f.metadata()?;
        if (open.dev(), open.ino()) != (at_path.dev(), at_path.ino()) {
            return Err(gone());
        }
    }
    #[cfg(not(unix))]
    let _ = (f, at_path);
    Ok(())
}

/// Writes `contents` to a new file at `path` as [`ExportFile`] does; returns the bytes written.
pub fn write_new(path: &Path, contents: &[u8]) -> Result<u64, ExportError> {
    let mut f = ExportFile::create(path)?;
    f.write_all(contents)?;
    f.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn created_for_the_owner_only_and_never_over_a_file() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("x.csv");
        assert_eq!(write_new(&p, b"a,b\n").unwrap(), 4);
        let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert!(matches!(
            write_new(&p, b"c"),
            Err(ExportError::Exists { .. })
        ));
        assert_eq!(std::fs::read(&p).unwrap(), b"a,b\n", "untouched");
    }

    #[test]
    fn a_missing_directory_is_a_create_error() {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("no/such/dir.csv");
        let e = write_new(&p, b"x").unwrap_err();
        assert!(matches!(e, ExportError::Create { .. }), "{e}");
        assert!(e.to_string().starts_with("cannot create "), "{e}");
    }

    #[test]
    fn dropped_or_abandoned_leaves_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("x.csv");
        let mut f = ExportFile::create(&p).unwrap();
        f.write_all(b"partial").unwrap();
        drop(f);
        assert!(!p.exists());
        let f = ExportFile::create(&p).unwrap();
        assert_eq!(f.abandon(), Removal::Removed);
        assert!(!p.exists());
    }

    #[test]
    fn a_directory_removed_during_the_export_fails_it() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("d");
        std::fs::create_dir(&dir).unwrap();
        let p = dir.join("x.csv");
        let mut f = ExportFile::create(&p).unwrap();
        f.write_all(b"rows\n").unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        f.write_all(b"more rows\n").unwrap(); // buffered: the writes themselves still succeed
        let e = f.finish().unwrap_err();
        let m = e.to_string();
        assert!(m.contains("removed while it was written"), "{m}");
        assert!(m.contains("no partial file is left"), "{m}");
        // The same path works again once the directory is back.
        std::fs::create_dir(&dir).unwrap();
        assert_eq!(write_new(&p, b"ok").unwrap(), 2);
    }

    /// A real full disk: a 64 KiB tmpfs (needs root to mount; said on stderr when not).
    #[cfg(target_os = "linux")]
    #[test]
    fn a_full_disk_removes_the_partial_file_and_the_path_works_again() {
        struct Mounted(std::path::PathBuf);
        impl Drop for Mounted {
            fn drop(&mut self) {
                let _ = std::process::Command::new("umount").arg(&self.0).status();
            }
        }
        let tmp = tempfile::tempdir().unwrap();
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=64k", "tmpfs"])
            .arg(tmp.path())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            eprintln!("SKIPPED: cannot mount a tmpfs here (not root?): disk full not tested");
            return;
        }
        let _m = Mounted(tmp.path().to_path_buf());
        let p = tmp.path().join("big.csv");
        let mut f = ExportFile::create(&p).unwrap();
        let row = [b'x'; 1000];
        let e = (0..1000)
            .find_map(|_| f.write_all(&row).err())
            .expect("a 64 KiB disk fills up");
        let m = e.to_string();
        assert!(m.contains("No space left on device"), "{m}");
        assert!(m.ends_with("the partial file was removed"), "{m}");
        assert!(!p.exists());
        assert!(f.write_all(b"x").is_err(), "over");
        drop(f);
        // Streaming a file that fits only at finish (in the buffer until then) fails there.
        let mut f = ExportFile::create(&p).unwrap();
        f.write_all(&[b'y'; 60_000]).unwrap();
        let mut g = ExportFile::create(&tmp.path().join("other")).unwrap();
        g.write_all(&[b'z'; 30_000]).unwrap();
        assert!(g.finish().is_ok());
        let e = f.finish().unwrap_err();
        assert!(
            e.to_string().contains("the partial file was removed"),
            "{e}"
        );
        assert!(!p.exists());
        // The same path again, with what fits.
        assert_eq!(write_new(&p, b"id\n").unwrap(), 3);
        assert_eq!(std::fs::read(&p).unwrap(), b"id\n");
    }
}
