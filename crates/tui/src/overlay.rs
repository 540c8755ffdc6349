//! What covers the table, if anything: one overlay at a time (the help may cover another). Each is drawn by its file in
//! [`super::view`] and takes the keys while open (`update::on_key`).

use super::filter_form::FilterForm;
use super::summary_pane::SummaryPane;

/// What covers the table, if anything. One at a time.
#[derive(Debug, Clone, Default)]
pub enum Overlay {
    #[default]
    None,
    /// The key list, scrolled by this many lines (on short terminals), over the overlay it
    /// was opened from (shown again when the help closes).
    Help {
        scroll: usize,
        under: Option<Box<Overlay>>,
    },
    /// The saved-view picker with its selected line.
    Views {
        selected: usize,
    },
    Filter(Box<FilterForm>),
    /// `S`: the summary of the Conversations tab's loaded walk.
    Summary(Box<SummaryPane>),
    /// `B`: the board of every view (its state is `App::board`, kept while it is not shown).
    Board,
    /// `!`: the menu of the user's commands on this tab, with its selected line.
    Commands {
        selected: usize,
    },
    /// `Y`: the row's fields to copy (what each is, its value), with the selected line.
    CopyField {
        selected: usize,
        fields: Vec<(&'static str, String)>,
    },
    /// A `pane` command's output.
    Output(Box<super::commands::OutputPane>),
}
