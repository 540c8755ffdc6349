//! How a summary walk ended: its counts, its error, and whether it was cut short. Shared by
//! the plain walk (`command`) and the query's walk (`query`).

use super::Summary;
use convo_api::ApiError;
use convo_query::exit::ListError;

/// A walk's summary and how it ended.
pub struct Walked {
    pub summary: Summary,
    pub failure: Option<ApiError>,
    /// The service cut the walk short (no cursor, a repeated cursor, no progress), or some
    /// streams of a query failed.
    pub ended_early: bool,
}

impl Walked {
    /// The walk's error, or the unreadable rows, as the exit status.
    pub fn finish(self) -> Result<(), ListError> {
        if let Some(e) = self.failure {
            return Err(ListError::Api(e));
        }
        if self.ended_early {
            return Err(ListError::Truncated);
        }
        let unreadable = self.summary.coverage().unreadable_rows;
        if unreadable > 0 {
            return Err(ListError::BadRows(unreadable as usize));
        }
        Ok(())
    }
}

/// [`Walked`] and the number of pages that came back.
pub struct WalkedPages {
    pub pages: usize,
    /// `--since-last`: what changed since the look.
    pub since: Option<convo_store::looks::SinceLook>,
    pub walked: Walked,
}

impl std::ops::Deref for WalkedPages {
    type Target = Walked;
    fn deref(&self) -> &Walked {
        &self.walked
    }
}

impl WalkedPages {
    pub fn finish(self) -> Result<(), ListError> {
        self.walked.finish()
    }
}
