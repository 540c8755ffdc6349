//! Snapshots of every screen on a `TestBackend`, with hand-built rows and a fixed clock.
//! Update with `INSTA_UPDATE=always cargo test --test it tui_snapshots::`, review, commit.

use crossterm::event::KeyCode;

use convo::api::{
    Assignee, Conversation, ConversationFilter, Resource, Status, Timestamp, Visitor, VisitorFilter,
};
use convo::config::View;
use convo::tui::app::App;
use convo::tui::command::Command;
use convo::tui::msg::{Loaded, Msg};
use convo::tui::testing::{self, FakeServer, ch, key};
use convo::tui::update::update;

use crate::common;
use common::app::first_response;

fn loaded(w: u16, h: u16, conversations: usize, visitors: usize) -> (App, FakeServer) {
    common::app::loaded((w, h), conversations, visitors)
}

#[test]
fn conversations_tab() {
    let (mut app, _s) = loaded(120, 30, 300, 40);
    for _ in 0..3 {
        update(&mut app, key(KeyCode::Down));
    }
    insta::assert_snapshot!(testing::render(&app));
}

#[test]
fn visitors_tab() {
    let (mut app, s) = loaded(120, 30, 300, 40);
    s.settle(&mut app, ch('2'));
    update(&mut app, key(KeyCode::Down));
    insta::assert_snapshot!(testing::render(&app));
}

#[test]
fn empty_list() {
    let (mut app, _s) = loaded(100, 20, 0, 0);
    update(&mut app, key(KeyCode::Down));
    insta::assert_snapshot!(testing::render(&app));
}

#[test]
fn loading_first_page() {
    let mut app = testing::app(100, 20, 50);
    update(&mut app, Msg::Resize(100, 20));
    insta::assert_snapshot!(testing::render(&app));
}

#[test]
fn loading_next_page_row() {
    let (mut app, _s) = loaded(100, 20, 300, 10);
    update(&mut app, key(KeyCode::End));
    assert!(app.conversations.walk().is_loading());
    insta::assert_snapshot!(testing::render(&app));
}

#[test]
fn error_status_keeps_rows() {
    let (mut app, _s) = loaded(100, 20, 300, 10);
    update(&mut app, key(KeyCode::End));
    common::app::page_fails(&mut app, 502, ": bad gateway \u{1b}[2J".to_string());
    insta::assert_snapshot!(testing::render(&app));
}

#[test]
fn rate_limited_countdown() {
    let (mut app, _s) = loaded(100, 20, 300, 10);
    update(&mut app, key(KeyCode::End));
    let wait = std::time::Duration::from_secs(3);
    common::app::retrying(&mut app, 2, wait, "rate limited (HTTP 429)", true);
    insta::assert_snapshot!(testing::render(&app));
}

#[test]
fn filter_pane_with_an_invalid_field() {
    let (mut app, _s) = loaded(100, 24, 300, 10);
    update(&mut app, ch('/'));
    for c in "12345-nope".chars() {
        update(&mut app, ch(c));
    }
    update(&mut app, key(KeyCode::Tab));
    update(&mut app, ch(' ')); // status: open
    update(&mut app, key(KeyCode::Tab));
    for _ in 0..3 {
        update(&mut app, ch(' ')); // assignee: assigned to <uuid>
    }
    update(&mut app, key(KeyCode::Enter)); // refused
    insta::assert_snapshot!(testing::render(&app));
}

#[test]
fn filter_chips_with_aliases() {
    let (mut app, s) = loaded(120, 16, 300, 10);
    let f = ConversationFilter {
        site_id: Some(testing::SITE_A),
        status: Some(Status::Pending),
        assignee: Assignee::Agent(testing::AGENT_A),
        visitor_id: None,
        by_email: None,
    };
    app.conversations.set_filter(f);
    s.settle(&mut app, Msg::Resize(120, 16));
    insta::assert_snapshot!(testing::render(&app));
}

/// The chips are the query's terms as `:` writes them (the site by its alias), whatever set
/// it; on a narrow screen the last one that does not fit is cut with `…`, the rest left out,
/// and the hint stays on the line (never wrapped).
#[test]
fn chips_show_the_query_fitted_to_the_width_keeping_the_hint() {
    let (mut app, s) = loaded(120, 12, 300, 10);
    update(&mut app, ch(':'));
    for c in "status:open,pending -site:\"Web shop\" age:>1h idle:>10m".chars() {
        update(&mut app, ch(c));
    }
    s.settle(&mut app, key(KeyCode::Enter));
    let wide = testing::render(&app);
    let chips = wide.lines().nth(1).unwrap_or_default();
    assert!(
        chips.contains(
            " status:open,pending   -site:\"Web shop\"   age:>1h   idle:>10m  x clears · Backspace back"
        ),
        "{chips}"
    );
    s.settle(&mut app, Msg::Resize(60, 12));
    insta::assert_snapshot!(testing::render(&app));
}

#[test]
fn detail_pane_of_a_conversation_wide() {
    let (mut app, _s) = loaded(160, 30, 300, 10);
    update(&mut app, key(KeyCode::Down));
    update(&mut app, key(KeyCode::Enter));
    insta::assert_snapshot!(testing::render(&app));
}

#[test]
fn detail_pane_of_a_visitor_scrolled() {
    let (mut app, s) = loaded(100, 30, 30, 30);
    s.settle(&mut app, ch('2'));
    update(&mut app, key(KeyCode::Enter));
    update(&mut app, ch('J'));
    insta::assert_snapshot!(testing::render(&app));
}

/// On a small terminal (60x15) the pane holds a few lines: its border says how many more are
/// below and how to scroll to them; scrolled to the end, how many are above.
#[test]
fn detail_pane_on_a_small_terminal_says_more_is_below() {
    let (mut app, _s) = loaded(60, 15, 300, 10);
    update(&mut app, key(KeyCode::Enter));
    let top = testing::render(&app);
    assert!(top.contains("more · J/K scroll"), "{top}");
    for _ in 0..40 {
        update(&mut app, ch('J'));
    }
    let end = testing::render(&app);
    assert!(!end.contains("more · J/K"), "{end}");
    assert!(end.contains("above"), "{end}");
    insta::assert_snapshot!(format!("{top}\n{end}"));
}

/// Beside the table on a wide terminal, the pane's key hints fit its width (two lines).
#[test]
fn detail_pane_of_a_visitor_beside_the_table() {
    let (mut app, s) = loaded(120, 34, 30, 30);
    s.settle(&mut app, ch('2'));
    update(&mut app, key(KeyCode::Enter));
    insta::assert_snapshot!(testing::render(&app));
}

#[test]
fn help_overlay() {
    let (mut app, _s) = loaded(120, 40, 300, 10);
    update(&mut app, ch('?'));
    insta::assert_snapshot!(testing::render(&app));
}

#[test]
fn view_picker() {
    let (mut app, _s) = loaded(120, 24, 300, 10);
    app.settings_mut().save_view(View {
        name: "My open".into(),
        tab: Resource::Conversations,
        conversations: ConversationFilter {
            status: Some(Status::Open),
            assignee: Assignee::Agent(testing::AGENT_A),
            ..Default::default()
        },
        visitors: VisitorFilter::default(),
        notify: false,
        oldest_first: false,
        query: None,
    });
    app.settings_mut().save_view(View {
        name: "Visitor by e-mail".into(),
        tab: Resource::Visitors,
        conversations: ConversationFilter::default(),
        visitors: VisitorFilter {
            email: Some("ana@example.com".into()),
            external_id: None,
        },
        notify: false,
        oldest_first: false,
        query: None,
    });
    update(&mut app, ch('v'));
    update(&mut app, key(KeyCode::Down));
    insta::assert_snapshot!(testing::render(&app));
}

#[test]
fn narrow_terminal_60x15() {
    let (mut app, s) = loaded(60, 15, 300, 30);
    update(&mut app, key(KeyCode::Down));
    let conversations = testing::render(&app);
    s.settle(&mut app, ch('2'));
    let visitors = testing::render(&app);
    update(&mut app, key(KeyCode::Enter));
    let detail = testing::render(&app);
    insta::assert_snapshot!(format!("{conversations}\n{visitors}\n{detail}"));
}

fn hostile_visitors() -> Vec<Visitor> {
    let mut v: Vec<Visitor> = (0..6).map(testing::visitor).collect();
    v[0].name = Some("\u{1b}[2J\u{1b}]0;pwned\u{7}Mallory".into());
    v[0].email = Some("evil\u{202e}moc.elpmaxe@x".into());
    v[1].name = Some("王小明 李华 张伟 刘洋".into());
    v[1].email = Some("zero\u{200b}width@example.com".into());
    v[2].name = Some("👩‍💻 Zoë 🌸🌸🌸 ❤️ family 👨‍👩‍👧".into());
    v[3].name = Some("x".repeat(5000));
    v[3].external_id = Some("\r\n\t\u{8}back".into());
    v[4].attributes = serde_json::json!({"\u{1b}[31mred": "\u{9b}2J", "note": "a\u{2066}b"});
    v
}

#[test]
fn hostile_strings_from_the_server() {
    let mut app = testing::app(120, 16, 50);
    update(&mut app, Msg::Resize(120, 16));
    let mut conv: Vec<Conversation> = (0..3).map(testing::conversation).collect();
    conv[0].status = Status::Other("\u{1b}[5msnoozed\u{202e}".into());
    conv[1].created_at = Timestamp::Raw("yesterday\u{1b}[H".into());
    let result = Ok(Loaded::Conversations(testing::page(&conv, 0, 50)));
    common::app::page_loaded(&mut app, Resource::Conversations, result);
    let conversations = testing::render(&app);
    let result = Ok(Loaded::Visitors(testing::page(&hostile_visitors(), 0, 50)));
    common::app::page_loaded(&mut app, Resource::Visitors, result);
    update(&mut app, ch('2'));
    let visitors = testing::render(&app);
    update(&mut app, key(KeyCode::Enter));
    let detail = testing::render(&app);
    for screen in [&conversations, &visitors, &detail] {
        assert_clean(&app, screen);
    }
    insta::assert_snapshot!(format!("{conversations}\n{visitors}\n{detail}"));
    // every cell of the real buffer too
    let buf = testing::render_buffer(&app);
    for cell in buf.content() {
        assert!(
            convo::text::is_clean(cell.symbol()),
            "unsafe cell {:?}",
            cell.symbol()
        );
    }
}

fn assert_clean(_app: &App, screen: &str) {
    for c in screen.chars() {
        let cp = c as u32;
        assert!(
            !((0x7f..=0x9f).contains(&cp) || cp < 0x20 && c != '\n'),
            "control character {cp:#x} on screen"
        );
        assert!(
            !(0x202a..=0x202e).contains(&cp) && !(0x2066..=0x2069).contains(&cp),
            "bidi control {cp:#x} on screen"
        );
    }
}

#[test]
fn cjk_and_emoji_keep_columns_aligned() {
    let mut app = testing::app(120, 12, 50);
    update(&mut app, Msg::Resize(120, 12));
    let result = Ok(Loaded::Visitors(testing::page(&hostile_visitors(), 0, 50)));
    common::app::page_loaded(&mut app, Resource::Visitors, result);
    update(&mut app, ch('2'));
    let buf = testing::render_buffer(&app);
    // the EMAIL column starts at the same cell on every row: its title's x
    let header_y = 2;
    let title_x = (1..buf.area.width - 5)
        .find(|x| {
            (0..5)
                .map(|i| buf[(x + i, header_y)].symbol())
                .collect::<String>()
                == "EMAIL"
        })
        .expect("EMAIL title");
    for y in 3..9 {
        let before = buf[(title_x - 1, y)].symbol();
        assert!(
            before == " " || before.is_empty(),
            "row {y}: the name column spills into the email column: {before:?}"
        );
    }
}

#[test]
fn help_overlay_narrow_scrolled() {
    let (mut app, _s) = loaded(60, 15, 300, 10);
    update(&mut app, ch('?'));
    for _ in 0..8 {
        update(&mut app, ch('j'));
    }
    insta::assert_snapshot!(testing::render(&app));
}

/// At 80x24 the help does not fit: `G` shows its end (the marks), `j` past the end changes
/// nothing (no blank screens), PgDn/PgUp move by a page, `g` is back at the top.
#[test]
fn help_overlay_scrolls_to_its_end_and_no_further() {
    let (mut app, _s) = loaded(80, 24, 300, 10);
    update(&mut app, ch('?'));
    let top = testing::render(&app);
    assert!(top.contains(" more ┘"), "says there is more below:\n{top}");
    update(&mut app, key(KeyCode::PageDown));
    let paged = testing::render(&app);
    assert_ne!(paged, top, "PgDn scrolls the help");
    update(&mut app, key(KeyCode::PageUp));
    assert_eq!(testing::render(&app), top, "PgUp scrolls back");
    update(&mut app, ch('G'));
    let end = testing::render(&app);
    insta::assert_snapshot!(end);
    for _ in 0..40 {
        update(&mut app, ch('j'));
    }
    assert_eq!(
        testing::render(&app),
        end,
        "j past the end scrolls into nothing"
    );
    update(&mut app, ch('k'));
    assert_ne!(testing::render(&app), end, "k at the end moves up at once");
    update(&mut app, ch('g'));
    assert_eq!(testing::render(&app), top);
}

/// The last line of a rendered screen, without its quotes.
fn last_line(screen: &str) -> String {
    let line = screen.lines().last().unwrap_or_default();
    line.trim_matches('"').to_string()
}

/// At 80 columns the export prompt's long label left three cells for the path ("….csv"):
/// the label is cut first, so the path being edited stays whole, for a name that exists too.
#[test]
fn the_export_path_stays_in_view_at_80_columns() {
    let (mut app, _s) = loaded(80, 24, 300, 10);
    update(&mut app, ch('e'));
    let Some(convo::tui::prompt::Prompt::Export(path)) = app.prompt().clone() else {
        panic!("e opens the path prompt: {:?}", app.prompt());
    };
    let line = last_line(&testing::render(&app));
    assert!(line.starts_with(" export CSV to"), "{line}");
    assert!(line.contains(&path), "the path {path:?} is cut: {line:?}");
    let long = "./exports/2026/november/queue-of-the-night-shift-before-the-handover.csv";
    app.open_prompt(convo::tui::prompt::Prompt::ExportExists(long.into()));
    let line = last_line(&testing::render(&app));
    // The label shortens (to "exists; CSV to: ") before the name is cut.
    assert!(line.starts_with(" exists; CSV to: "), "{line}");
    assert!(
        line.contains("night-shift-before-the-handover.csv"),
        "{line:?}"
    );
    // Wide enough for both: nothing is cut.
    let (mut app, _s) = loaded(160, 24, 300, 10);
    update(&mut app, ch('e'));
    let line = last_line(&testing::render(&app));
    assert!(
        line.contains("export CSV to (Enter writes, Esc cancels): ./convo-"),
        "{line}"
    );
}

/// The rows of an overlay's box whose left border the terminal does not show: the box is
/// found by its right-hand corners (┐ ┘), its left edge by the border cells seen, and each row
/// between must show its border there. The screen is the backend's, as a terminal shows it.
fn rows_missing_left_border(buf: &ratatui::buffer::Buffer) -> Vec<u16> {
    let sym = |x: u16, y: u16| buf[(x, y)].symbol().to_string();
    let find = |corner: &str| {
        (buf.area.y..buf.area.bottom()).find_map(|y| {
            (buf.area.x..buf.area.right())
                .rev()
                .find(|&x| sym(x, y) == corner)
                .map(|x| (x, y))
        })
    };
    let (Some((right, top)), Some((_, bottom))) = (find("┐"), find("┘")) else {
        return Vec::new();
    };
    let border = |x: u16, y: u16| ["┌", "│", "└"].contains(&sym(x, y).as_str());
    let Some(left) = (top..=bottom)
        .filter_map(|y| (0..right).find(|&x| border(x, y)))
        .min()
    else {
        return vec![top];
    };
    (top..=bottom).filter(|&y| !border(left, y)).collect()
}

/// An overlay's left border over the second half of a wide character of the table (王 in
/// NAME at 80 columns under the filter pane's corner) was drawn but never shown: the terminal
/// gives that cell to the character. The character behind a border gives way to a space.
#[test]
fn overlay_borders_are_not_hidden_behind_wide_characters() {
    let (mut app, s) = loaded(80, 24, 300, 40);
    s.settle(&mut app, ch('2'));
    for open in [ch('/'), ch('?')] {
        update(&mut app, open);
        let missing = rows_missing_left_border(&testing::render_buffer(&app));
        assert!(
            missing.is_empty(),
            "no left border on rows {missing:?}:\n{}",
            testing::render(&app)
        );
        update(&mut app, key(KeyCode::Esc));
    }
}

// ---- response-time targets (issue 13) ----

/// The cells of the screen's row `y` whose symbols spell `text`, and their colour.
fn colour_of(buf: &ratatui::buffer::Buffer, text: &str) -> Option<ratatui::style::Color> {
    let w = buf.area.width as usize;
    let cells: Vec<&ratatui::buffer::Cell> = buf.content.iter().collect();
    for row in cells.chunks(w) {
        let line: String = row.iter().map(|c| c.symbol()).collect();
        if let Some(i) = line.find(text) {
            let col = line[..i].chars().count();
            return Some(row[col].fg);
        }
    }
    None
}

#[test]
fn due_column_shows_time_left_or_overdue_coloured_by_state() {
    use ratatui::style::Color;
    let (mut app, _s) = loaded(120, 22, 40, 5);
    app.settings_mut().set_sla(first_response(25), false);
    let screen = testing::render(&app);
    // Waiting rows (open, unassigned) of the test data: 1, 22, 85 minutes old.
    assert!(screen.contains(" DUE "), "{screen}");
    let buf = testing::render_buffer(&app);
    assert_eq!(colour_of(&buf, "in 24m"), Some(Color::Green), "{screen}");
    assert_eq!(colour_of(&buf, "in 3m"), Some(Color::Yellow), "{screen}");
    assert_eq!(colour_of(&buf, "over 1h"), Some(Color::Red), "{screen}");
    insta::assert_snapshot!(screen);
    // Without targets, no DUE column.
    app.settings_mut()
        .set_sla(convo::sla::Sla::default(), false);
    assert!(!testing::render(&app).contains("DUE"));
}

/// Sets a first response target of 25 minutes and a resolution target of an hour; the screen.
fn with_both_targets(app: &mut App) -> String {
    let mut sla = first_response(25);
    sla.base.resolution = Some(60 * 60);
    app.settings_mut().set_sla(sla, false);
    testing::render(app)
}

/// A resolution target adds a RESOLVE column after DUE: every conversation not closed has
/// one, coloured by state; closed ones show `—`. Without the target the column goes.
#[test]
fn resolution_column_shows_the_resolution_target_beside_due() {
    use ratatui::style::Color;
    let (mut app, _s) = loaded(140, 22, 40, 5);
    let screen = with_both_targets(&mut app);
    let header = screen.lines().nth(2).unwrap_or_default();
    let (due, resolve) = (header.find(" DUE "), header.find(" RESOLVE "));
    assert!(
        due.is_some() && resolve.is_some() && due < resolve,
        "DUE then RESOLVE: {screen}"
    );
    let buf = testing::render_buffer(&app);
    assert_eq!(colour_of(&buf, "over 25m"), Some(Color::Red), "{screen}");
    assert!(
        screen
            .lines()
            .any(|l| l.starts_with("\" closed") && l.matches('—').count() >= 2),
        "closed rows have neither: {screen}"
    );
    insta::assert_snapshot!(screen);
    // Resolution alone: RESOLVE after STATUS, no DUE.
    let mut sla = convo::sla::Sla::default();
    sla.base.resolution = Some(60 * 60);
    app.settings_mut().set_sla(sla, false);
    let screen = testing::render(&app);
    assert!(
        screen.contains(" RESOLVE ") && !screen.contains(" DUE "),
        "{screen}"
    );
    app.settings_mut()
        .set_sla(convo::sla::Sla::default(), false);
    assert!(!testing::render(&app).contains("RESOLVE"));
}

#[test]
fn due_column_without_colour_marks_the_state() {
    let (mut app, _s) = loaded(120, 22, 40, 5);
    app.settings_mut()
        .apply_ui(&convo::config::ui::UiConfig::default(), true);
    app.settings_mut().set_sla(first_response(25), false);
    let screen = testing::render(&app);
    assert!(screen.contains("!! over 1h"), "{screen}");
    assert!(screen.contains("!  in 3m"), "{screen}");
    insta::assert_snapshot!(screen);
}

/// Terminals of 1x1, 10x3, no columns, no lines, or just below the minimum in one direction:
/// never a panic, whatever is open (help, views, filters, summary, detail, search, export
/// prompt), one line saying the terminal is too small, and the whole screen again once it
/// grows. Keys pressed while tiny still work.
#[test]
fn tiny_terminals_say_so_and_recover_when_they_grow() {
    let tiny = [(1, 1), (10, 3), (0, 10), (0, 0), (19, 40), (120, 5)];
    let openers: [&[Msg]; 8] = [
        &[],
        &[ch('?')],
        &[ch('v')],
        &[ch('/')],
        &[ch('S')],
        &[key(KeyCode::Enter)],
        &[ch('\\'), ch('c')],
        &[ch('e')],
    ];
    for (w, h) in tiny {
        for open in openers {
            let (mut app, s) = loaded(120, 30, 300, 40);
            for m in open {
                s.settle(&mut app, m.clone());
            }
            s.settle(&mut app, Msg::Resize(w, h));
            let what = format!("{w}x{h} with {open:?}");
            // TestBackend cannot print a screen of no cells (its Display panics): draw only.
            let draw = |app: &convo::tui::app::App| {
                if w > 0 && h > 0 {
                    testing::render(app)
                } else {
                    let _ = testing::render_buffer(app);
                    String::new()
                }
            };
            let screen = draw(&app);
            if w > 0 && h > 0 {
                let first = screen.lines().next().unwrap_or_default();
                let text: String = screen.lines().collect::<Vec<_>>().join("");
                // The line, cut to the width: its start is always there.
                let want = "too small";
                let shown = &want[..want.len().min(w as usize)];
                assert!(first.contains(shown), "{what}:\n{screen}");
                assert_eq!(
                    text.matches(want).count(),
                    usize::from(w as usize >= want.len()),
                    "{what}: one line only:\n{screen}"
                );
            }
            // Keys while tiny: moving, paging, closing; nothing panics.
            for m in [
                key(KeyCode::Down),
                key(KeyCode::PageDown),
                key(KeyCode::End),
                key(KeyCode::Esc),
            ] {
                s.settle(&mut app, m);
                let _ = draw(&app);
            }
            s.settle(&mut app, Msg::Resize(120, 30));
            let screen = testing::render(&app);
            assert!(!screen.contains("too small"), "{what}, grown:\n{screen}");
            assert!(screen.contains("STATUS"), "{what}, grown:\n{screen}");
        }
    }
    let (mut app, s) = loaded(120, 30, 300, 40);
    s.settle(&mut app, Msg::Resize(10, 3));
    insta::assert_snapshot!(testing::render(&app));
    s.settle(&mut app, Msg::Resize(40, 3));
    insta::assert_snapshot!(testing::render(&app));
}

/// The built-in "Breaching" view (`v`, second entry): open unassigned conversations, every
/// page loaded, oldest first, its breaching and imminent counts in the title; `r` keeps it,
/// another filter ends it.
#[test]
fn the_breaching_view_loads_the_queue_oldest_first_with_its_counts_in_the_title() {
    let (mut app, s) = loaded(120, 24, 1000, 10);
    app.settings_mut().set_sla(first_response(25), false);
    let waiting: Vec<&Conversation> = s
        .conversations
        .iter()
        .filter(|c| c.status == Status::Open && c.assignee_id.is_none())
        .collect();
    assert!(waiting.len() > 100, "more than two pages of 50");
    // The view holds the breaching ones (`due:breaching`), oldest first.
    let mut oldest_first: Vec<&Conversation> = waiting
        .iter()
        .copied()
        .filter(|c| {
            app.settings()
                .sla()
                .first_response(c, app.now())
                .map(|d| d.state)
                == Some(convo::sla::State::Breaching)
        })
        .collect();
    oldest_first.sort_by_key(|c| c.created_at.parsed());
    let want: Vec<uuid::Uuid> = oldest_first.iter().map(|c| c.id).collect();
    let (mut breaching, mut imminent) = (0, 0);
    for c in &waiting {
        match app
            .settings()
            .sla()
            .first_response(c, app.now())
            .map(|d| d.state)
        {
            Some(convo::sla::State::Breaching) => breaching += 1,
            Some(convo::sla::State::Imminent) => imminent += 1,
            _ => {}
        }
    }
    assert!(breaching > 0 && imminent > 0, "{breaching} {imminent}");
    let shown = |app: &App| -> Vec<uuid::Uuid> {
        let order = app.sort().get(Resource::Conversations);
        let rows = app.conversations.rows();
        (0..rows.len()).map(|p| rows[order.row_at(p)].id).collect()
    };

    s.settle(&mut app, ch('v'));
    assert!(testing::render(&app).contains("Breaching"));
    s.settle(&mut app, key(KeyCode::Down));
    s.settle(&mut app, key(KeyCode::Enter));
    assert_eq!(app.conversations.rows().len(), want.len(), "every page");
    assert_eq!(want.len(), breaching);
    assert_eq!(shown(&app), want, "oldest first");
    let screen = testing::render(&app);
    assert!(
        screen.contains(&format!("Breaching {breaching} breaching · 0 imminent")),
        "{screen}"
    );
    insta::assert_snapshot!(screen);

    // A reload walks again, loads everything again and keeps the order.
    s.settle(&mut app, ch('r'));
    assert_eq!(app.conversations.rows().len(), want.len());
    assert_eq!(shown(&app), want, "oldest first after r");
    assert!(testing::render(&app).contains("Breaching"));

    // Another filter (unassigned off) ends the view: no title, the server's order.
    s.settle(&mut app, ch('u'));
    let screen = testing::render(&app);
    assert!(!screen.contains("Breaching"), "{screen}");
    assert!(!app.sort().get(Resource::Conversations).sorted());
}

/// The detail pane of a conversation asks the local store once for its visitor and shows the
/// name, e-mail, external id and the attributes (made terminal-safe, long values cut); another
/// row's visitor is asked for in turn, and never shown with the first one's attributes.
#[test]
fn detail_pane_shows_the_visitor_from_the_store_with_attributes() {
    let (mut app, s) = loaded(140, 30, 40, 5);
    let visitor = app.conversations.rows()[0].visitor_id;
    update(
        &mut app,
        common::app::visitor_named(
            visitor,
            Some("Ana Sousa"),
            Some("ana@example.com"),
            Some("crm-4411"),
        ),
    );
    let cmds = s.settle(&mut app, key(KeyCode::Enter));
    let asked: Vec<&Command> = cmds
        .iter()
        .filter(|c| matches!(c, Command::LoadVisitor(_)))
        .collect();
    assert_eq!(asked, [&Command::LoadVisitor(visitor)]);
    // Nothing more is asked while the answer is on its way.
    let cmds = s.settle(&mut app, Msg::Resize(140, 30));
    assert!(!cmds.iter().any(|c| matches!(c, Command::LoadVisitor(_))));
    update(
        &mut app,
        Msg::VisitorAttributes {
            id: visitor,
            attributes: serde_json::json!({
                "plan": "pro",
                "tags": ["vip", "eu"],
                "note": "hi \u{1b}[2J there",
                "blob": "x".repeat(1000),
            }),
        },
    );
    let screen = testing::render(&app);
    for want in [
        "Ana Sousa",
        "ana@example.com",
        "crm-4411",
        "attributes",
        "\"plan\": \"pro\"",
        "\"vip\"",
    ] {
        assert!(screen.contains(want), "{want}: {screen}");
    }
    assert!(!screen.contains('\u{1b}'), "{screen}");
    insta::assert_snapshot!(screen);
    // Down to a row of another visitor: asked for, and the first one's attributes go.
    let other = app
        .conversations
        .rows()
        .iter()
        .position(|c| c.visitor_id != visitor)
        .expect("another visitor");
    let mut cmds = Vec::new();
    for _ in 0..other {
        cmds.extend(s.settle(&mut app, key(KeyCode::Down)));
    }
    let next = app.conversations.rows()[other].visitor_id;
    assert!(cmds.contains(&Command::LoadVisitor(next)), "{cmds:?}");
    assert!(!testing::render(&app).contains("\"plan\""));
}

/// At 50x12 with both targets, a row can still be told apart: VISITOR and ID stay, the
/// target columns go before them (it showed STATUS DUE RESOLVE ASSIGNEE UPDATED).
#[test]
fn narrow_terminal_50x12_keeps_who_before_the_targets() {
    let (mut app, _s) = loaded(50, 12, 40, 5);
    let screen = with_both_targets(&mut app);
    let header = screen.lines().nth(2).unwrap_or_default();
    assert!(
        header.contains(" VISITOR ") && header.contains(" ID "),
        "{screen}"
    );
    assert!(!header.contains("RESOLVE"), "{screen}");
    insta::assert_snapshot!(screen);
}

/// The header's help hint and the detail pane's key hints are never cut at an edge: at 80
/// columns the header read "? he…", at 120 the pane's hint "A assignee's conversation".
#[test]
fn the_help_hint_and_the_detail_pane_hints_are_whole() {
    for (w, h) in [(80, 24), (100, 30), (120, 35), (200, 50)] {
        let (mut app, _s) = loaded(w, h, 40, 5);
        app.settings_mut()
            .show_endpoint("127.0.0.1:38211 · sk_demo_…abcd".into(), true);
        app.profiles_mut().current = Some("production-eu".into());
        let screen = testing::render(&app);
        let top = screen.lines().next().unwrap_or_default();
        assert!(top.ends_with(" ? help \""), "{w}x{h}: {top}");
        // What does not fit is left out whole, the key's tail first: never "sk_…d…".
        assert!(top.contains("profile production-eu"), "{w}x{h}: {top}");
        assert!(w < 100 || top.contains("127.0.0.1:38211"), "{w}x{h}: {top}");
        assert!(!top.contains("…  ? help"), "{w}x{h}: {top}");
        update(&mut app, key(KeyCode::Enter));
        // The hints are the pane's last lines: scrolled into view where the pane is short.
        for _ in 0..30 {
            update(&mut app, ch('J'));
        }
        let screen = testing::render(&app);
        for item in [
            "conversations of V visitor",
            "W site",
            "A assignee",
            "y copy id",
            "J/K PgUp/PgDn scroll",
            "Esc close",
        ] {
            assert!(screen.contains(item), "{w}x{h}: {item:?} cut: {screen}");
        }
        update(&mut app, ch('2'));
        for _ in 0..30 {
            update(&mut app, ch('J'));
        }
        let screen = testing::render(&app);
        for item in ["V their conversations", "y copy id", "J/K PgUp/PgDn scroll"] {
            assert!(screen.contains(item), "{w}x{h}: {item:?} cut: {screen}");
        }
    }
}

/// The export prompt's label shortens so that the path stays readable; the line above it
/// says whether names go with the ids, and the formats, at every width (at 80 columns the
/// long label left no room for it).
#[test]
fn the_export_prompt_leaves_room_for_the_path() {
    for w in [80, 100, 120, 200] {
        let (mut app, _s) = loaded(w, 24, 40, 5);
        update(&mut app, ch('e'));
        let screen = testing::render(&app);
        let mut lines = screen.lines().rev();
        let status = lines.next().unwrap_or_default();
        let guidance = lines.next().unwrap_or_default();
        assert!(
            status.contains("./convo-conversations-2026-11-22.csv"),
            "{w}: {status}"
        );
        assert!(guidance.contains("Tab: ids only"), "{w}: {guidance}");
        assert!(
            guidance.contains(".json JSON · .jsonl JSON Lines"),
            "{w}: {guidance}"
        );
    }
}

/// Issue 39 §12: the filter pane's longest label ("visitor email") keeps a gap before its
/// value (it ran into it: `▸ visitor emailnguyn…`), at 80x24 and 120x35.
#[test]
fn filter_pane_labels_keep_apart_from_their_values() {
    for (w, h) in [(80, 24), (120, 35)] {
        let (mut app, _s) = loaded(w, h, 300, 10);
        update(&mut app, ch('/'));
        for _ in 0..4 {
            update(&mut app, key(KeyCode::Tab));
        }
        for c in "nguyen.van.an23@example.com".chars() {
            update(&mut app, ch(c));
        }
        let screen = testing::render(&app);
        assert!(
            screen.contains("▸ visitor email  nguyen.van.an23@example.com"),
            "{screen}"
        );
        insta::assert_snapshot!(format!("filter_pane_labels_{w}x{h}"), screen);
    }
}

/// Issue 39 §12: with the detail pane beside the table, the table's scrollbar keeps a blank
/// cell before the pane's border (it sat against it); below the table at 80x24.
#[test]
fn detail_pane_leaves_a_cell_after_the_scrollbar() {
    for (w, h) in [(80, 24), (120, 35)] {
        let (mut app, _s) = loaded(w, h, 300, 10);
        update(&mut app, key(KeyCode::Enter));
        let screen = testing::render(&app);
        if w >= 120 {
            let row = screen.lines().nth(4).unwrap_or_default();
            assert!(row.contains("█ │"), "{row}");
        }
        insta::assert_snapshot!(format!("detail_pane_gutter_{w}x{h}"), screen);
    }
}

/// `[[commands]]` of `toml` in `app`, as `app_from_config` gives them.
fn with_commands(app: &mut App, toml: &str) {
    let env = |k: &str| (k == "CONVO_API_KEY").then(|| "sk_test_secretvalue1234".to_string());
    let cfg = convo::config::Config::from_toml_str(
        &format!("base_url = \"http://127.0.0.1:1\"\n{toml}"),
        std::path::Path::new("/t/c.toml"),
        &Default::default(),
        &env,
    )
    .unwrap();
    let keys = app
        .settings()
        .keymap()
        .command_keys(&cfg.ui.commands)
        .unwrap();
    app.commands_mut().configure(cfg.ui.commands, keys);
}

#[test]
fn marked_rows_and_the_menu_of_commands() {
    let (mut app, _s) = loaded(120, 24, 300, 10);
    with_commands(
        &mut app,
        "[[commands]]\nname = \"Open in CRM\"\nkey = \"O\"\nprogram = \"xdg-open\"\n\
         [[commands]]\nname = \"Tag marked\"\nprogram = \"tag\"\nfor_marked = \"all\"\n\
         confirm = true\noutput = \"pane\"\n\
         [[commands]]\nname = \"Visitors only\"\ntabs = \"visitors\"\nprogram = \"x\"\n",
    );
    for _ in 0..3 {
        update(&mut app, ch('m'));
    }
    update(&mut app, ch('j'));
    update(&mut app, ch('m'));
    update(&mut app, ch('!'));
    insta::assert_snapshot!(testing::render(&app));
}

#[test]
fn copy_menu_of_a_hostile_visitor() {
    let mut app = testing::app(100, 20, 50);
    update(&mut app, Msg::Resize(100, 20));
    let result = Ok(Loaded::Visitors(testing::page(&hostile_visitors(), 0, 50)));
    common::app::page_loaded(&mut app, Resource::Visitors, result);
    update(&mut app, ch('2'));
    update(&mut app, ch('Y'));
    let screen = testing::render(&app);
    assert_clean(&app, &screen);
    insta::assert_snapshot!(screen);
}

#[test]
fn output_pane_sanitises_what_the_program_wrote() {
    let (mut app, _s) = loaded(100, 20, 30, 10);
    update(
        &mut app,
        Msg::ProgramDone {
            id: 1,
            name: "Show".into(),
            output: convo::config::commands::Output::Pane,
            report: convo::tui::commands::RunReport {
                runs: 1,
                failures: vec!["exit 2".into()],
                text: "line one\n\u{1b}[2Jcleared\ttab\n\u{1b}]0;title\u{7}osc\nlast\n".into(),
                cut: false,
            },
        },
    );
    let screen = testing::render(&app);
    assert_clean(&app, &screen);
    insta::assert_snapshot!(screen);
}

/// Issue 41, 4 and issue 39, 3 and 5: the selected row leaves the view while its pane is open,
/// drawn without colour. The held row keeps the selection's `>` and says `×` in its first
/// cell; the pane's notice is one line at the pane's width, whole; the status line's message
/// and the footer end in whole words (a cut message says where it is whole).
#[test]
fn a_held_row_without_colour_shows_the_cursor_and_its_notices_fit() {
    for (w, h) in [(80u16, 24u16), (120, 35)] {
        let (mut app, mut server) = loaded(w, h, 300, 5);
        app.settings_mut()
            .apply_ui(&convo::config::ui::UiConfig::default(), true);
        app.refresh_every(Some(10));
        for _ in 0..3 {
            update(&mut app, key(KeyCode::Down));
        }
        update(&mut app, key(KeyCode::Enter));
        let x = app.selected_id().expect("a row");
        server.conversations.retain(|c| c.id != x);
        server.settle(&mut app, common::app::at(11));
        assert!(app.conversations.held().is_some(), "{w}x{h}: held");
        let screen = testing::render(&app);
        let short = &x.simple().to_string()[..8];
        let row = screen
            .lines()
            .find(|l| l.split(['│', '┌']).next().unwrap_or("").contains(short))
            .unwrap_or_else(|| panic!("{w}x{h}: shown:\n{screen}"));
        assert!(row.starts_with("\">×open "), "{w}x{h}: > and ×: {row}");
        let lines: Vec<&str> = screen.lines().collect();
        let notice = lines
            .iter()
            .find(|l| l.contains("× left"))
            .unwrap_or_else(|| panic!("{w}x{h}: the pane says it left:\n{screen}"));
        // The pane's own cells: beside the table (120 columns) the line holds a row too.
        let in_pane = notice
            .split('│')
            .find(|p| p.contains("× left"))
            .unwrap_or(notice);
        assert!(!in_pane.contains('…'), "{w}x{h}: whole: {notice}");
        let at = lines.iter().position(|l| l == notice).unwrap_or(0);
        assert!(
            lines[at + 1].contains("id    "),
            "{w}x{h}: fields next:\n{screen}"
        );
        let (footer, status) = (lines[lines.len() - 2], lines[lines.len() - 1]);
        for l in [footer, status] {
            let l = l.trim_end_matches(['"', ' ']);
            assert!(
                !l.ends_with('…') || l.contains("(? shows all)"),
                "{w}x{h}: ends whole: {l}"
            );
        }
        assert!(
            !status.contains('…') || status.contains("… (? shows all)"),
            "{w}x{h}: cut after a word: {status}"
        );
        insta::assert_snapshot!(format!("held_row_no_colour_{w}x{h}"), screen);
    }
}

/// Issue 39, 5: the header's sort mark and the first-minute hints fit 80 columns whole.
#[test]
fn the_sort_mark_and_the_hints_fit_80_columns_whole() {
    for (w, h) in [(80u16, 24u16), (120, 35)] {
        let (mut app, _s) = loaded(w, h, 40, 5);
        let screen = testing::render(&app);
        let hints = screen.lines().nth(1).unwrap_or_default();
        for part in ["/ filter", ": query", "v views", "B board", "S summary"] {
            assert!(hints.contains(part), "{w}x{h}: {part}: {hints}");
        }
        update(&mut app, ch('>'));
        let screen = testing::render(&app);
        let top = screen.lines().next().unwrap_or_default();
        let mark = top.split("sorted by ").nth(1).unwrap_or_default();
        let mark = mark.split(" · ").next().unwrap_or_default();
        let mark = mark.split("  ").next().unwrap_or_default();
        assert!(mark.starts_with("status ↓"), "{w}x{h}: {top}");
        assert!(!mark.contains('…'), "{w}x{h}: whole: {top}");
        insta::assert_snapshot!(format!("sorted_header_{w}x{h}"), screen);
    }
}

/// Issue 39, 5: the key hints under the table are whole at 80 columns with the visitor sync's
/// line in front (seen in tmux: `… y copy id · r…`): those that do not fit give way whole, help
/// and quit last.
#[test]
fn the_key_hints_under_the_table_are_whole_beside_the_sync_line() {
    for (w, h) in [(80u16, 24u16), (120, 35)] {
        let (mut app, _s) = loaded(w, h, 40, 5);
        app.names_mut().sync_line = Some("names: 700 visitors so far".into());
        app.status_line_mut().clear();
        let screen = testing::render(&app);
        let last = screen.lines().last().unwrap_or_default();
        let last = last.trim_end_matches(['"', ' ']);
        assert!(!last.contains('…'), "{w}x{h}: cut: {last}");
        assert!(last.ends_with("? help · q quit"), "{w}x{h}: {last}");
        assert!(
            last.contains("names: 700 visitors so far"),
            "{w}x{h}: {last}"
        );
        if w >= 120 {
            assert!(last.contains("r reload · ? help"), "{w}x{h}: {last}");
        }
    }
}

/// Issue 39, 2: the frame drawn right after a display sort is chosen no longer says the list
/// follows the top (seen in tmux: `row 36 · … · refresh 15s, following the top` for a second
/// after `>`, the cursor on row 36).
#[test]
fn the_footer_stops_saying_following_the_top_once_a_sort_is_chosen() {
    let (mut app, _s) = loaded(80, 24, 40, 5);
    app.refresh_every(Some(15));
    update(&mut app, common::app::at(1));
    let footer = common::app::footer(&app);
    common::assert_has(&footer, "following the top");
    update(&mut app, ch('>'));
    let footer = common::app::footer(&app);
    assert!(!footer.contains("following the top"), "{footer}");
    common::assert_has(&footer, "auto refresh 15s");
}

/// Issue 39, 3: in a display sort (the "Breaching" view's oldest first), the selected row
/// that leaves is held where it was in the display order, with the cursor on it (it was not
/// drawn at all, the screen jumped elsewhere, and `k` then went far away); `k` goes to the
/// row above it there, `j` to the row after it.
#[test]
fn a_held_row_in_a_display_sort_stays_where_it_was() {
    for (w, h) in [(80u16, 24u16), (120, 35)] {
        let (mut app, mut server) = loaded(w, h, 300, 5);
        app.refresh_every(Some(10));
        update(&mut app, ch('>'));
        update(&mut app, ch('g'));
        for _ in 0..3 {
            update(&mut app, key(KeyCode::Down));
        }
        // With the pane open (below the table at 80x24), as a supervisor reads it.
        update(&mut app, key(KeyCode::Enter));
        let above = testing::render(&app);
        let x = app.selected_id().expect("a row");
        let lines: Vec<&str> = above.lines().collect();
        let y = lines
            .iter()
            .position(|l| l.starts_with("\">"))
            .expect("cursor");
        let short = |id: uuid::Uuid| id.simple().to_string()[..8].to_string();
        let row_above = lines[y - 1].to_string();
        server.conversations.retain(|c| c.id != x);
        server.settle(&mut app, common::app::at(11));
        assert!(app.conversations.held().is_some(), "{w}x{h}: held");
        let screen = testing::render(&app);
        let now: Vec<&str> = screen.lines().collect();
        let at = now
            .iter()
            .position(|l| l.starts_with("\">×"))
            .unwrap_or_else(|| panic!("{w}x{h}: the cursor on the held row:\n{screen}"));
        assert!(now[at].contains(&short(x)), "{w}x{h}: {}", now[at]);
        assert_eq!(at, y, "{w}x{h}: on its line:\n{screen}");
        let table = |l: &str| l.chars().take(60).collect::<String>();
        assert_eq!(
            table(now[at - 1]),
            table(&row_above),
            "{w}x{h}: the same row above"
        );
        insta::assert_snapshot!(format!("held_row_sorted_{w}x{h}"), screen);
        update(&mut app, key(KeyCode::Up));
        let screen = testing::render(&app);
        let up: Vec<&str> = screen.lines().collect();
        let cursor = up
            .iter()
            .position(|l| l.starts_with("\">"))
            .expect("cursor");
        assert_eq!(
            table(&up[cursor][2..]),
            table(&row_above[2..]),
            "{w}x{h}: k: the row above"
        );
    }
}
