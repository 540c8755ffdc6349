//! Issue 22 §4 end to end: the real binary in a pseudo-terminal against a demo server. The
//! query line (`:`) runs a query and shows a bad one's caret; `w` saves the query as a view
//! into the config file (the rest of the file kept) and `v` lists it; the next run has the
//! line's history from the local store and opens the view.

use convo::demo::DemoOptions;

use crate::common;
use common::Demo;
use common::pty::Pty;

const ROWS: u16 = 30;
const COLS: u16 = 120;

/// The table's rows on `screen` (the lines after the column titles, up to the footer).
fn statuses(screen: &str) -> Vec<String> {
    screen
        .lines()
        .skip_while(|l| !l.contains("STATUS"))
        .skip(1)
        .take_while(|l| !l.contains(" loaded"))
        .filter_map(|l| {
            l.trim_start_matches(['>', ' ', '•', '~'])
                .split_whitespace()
                .next()
        })
        .map(str::to_string)
        .collect()
}

#[test]
fn the_query_line_runs_a_query_shows_errors_and_saves_a_view() {
    let server = Demo::with(DemoOptions {
        seed: 5,
        conversations: 200,
        visitors: 40,
        ..DemoOptions::default()
    });
    let tmp = tempfile::tempdir().expect("tempdir");
    let config = tmp.path().join("convo.toml");
    let original = format!(
        "# the team's convo config\nbase_url = \"{}\"   # the demo server\n\n[aliases]\n# nobody yet\n\n[[views]]\nname = \"Pending\"  # the slow ones\nstatus = \"pending\"\n",
        server.url()
    );
    std::fs::write(&config, &original).unwrap();
    let mut cmd = common::pty::command(tmp.path());
    cmd.env("CONVO_API_KEY", server.key());
    cmd.arg("--config");
    cmd.arg(&config);
    let mut s = Pty::run(cmd, COLS, ROWS);
    let first = s.wait_for("loaded · more available");
    assert!(statuses(&first).iter().any(|st| st != "open"), "{first}");

    // `:status:open` Enter: only open rows.
    s.send(":status:open\r");
    let screen = s.wait_until(std::time::Duration::from_secs(20), |sc| {
        let st = statuses(sc);
        sc.contains(" status:open  x clears") && st.len() > 5 && st.iter().all(|x| x == "open")
    });
    assert!(
        !screen.contains("query · conversations"),
        "the line closed:\n{screen}"
    );

    // A bad query: the caret under the second status term, the rows as they were.
    s.send(":\x15status:open status:pending\r");
    let screen = s.wait_for("at character 13 of the query");
    // The carets stand under "status:pending" of the line above them.
    let lines: Vec<&str> = screen.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("^^^^^^^^^^^^^^"))
        .unwrap_or_else(|| panic!("no caret:\n{screen}"));
    let col = |l: &str, pat: &str| l.find(pat).map(|b| l[..b].chars().count());
    assert_eq!(
        col(lines[at], "^"),
        col(lines[at - 1], "status:pending"),
        "{screen}"
    );
    assert!(
        screen.contains("(use") && screen.contains("status:open,pending)"),
        "{screen}"
    );
    assert!(statuses(&screen).iter().all(|x| x == "open"), "{screen}");
    s.send("\x1b");
    s.wait_gone("query · conversations", std::time::Duration::from_secs(5));

    // A union saved as a view: in the file (the rest of it untouched) and in `v`.
    s.send(":\x15status:open,pending -assignee:none\r");
    s.wait_until(std::time::Duration::from_secs(20), |sc| {
        let st = statuses(sc);
        st.iter().any(|x| x == "pending") && st.iter().all(|x| x == "open" || x == "pending")
    });
    s.send("w");
    s.wait_for("as the view");
    s.send("Taken\r");
    let screen = s.wait_for("view \"Taken\" saved in");
    assert!(screen.contains("convo.toml"), "{screen}");
    let text = std::fs::read_to_string(&config).unwrap();
    let added = "\n[[views]]\nname = \"Taken\"\ntab = \"conversations\"\nquery = \"status:open,pending -assignee:none\"\n";
    assert_eq!(text, format!("{original}{added}"));
    s.send("v");
    let screen = s.wait_for("Saved views");
    assert!(
        screen.contains("Taken") && screen.contains("status:open,pending -assignee:none"),
        "{screen}"
    );
    s.send("\x1b");
    s.wait_gone("Saved views", std::time::Duration::from_secs(5));
    s.send("q");
    assert_eq!(s.wait_exit(std::time::Duration::from_secs(10)), Some(0));

    // The next run: the history came back from the local store (newest first), and the
    // saved view opens from the file.
    let mut cmd = common::pty::command(tmp.path());
    cmd.env("CONVO_API_KEY", server.key());
    cmd.arg("--config");
    cmd.arg(&config);
    cmd.args(["--view", "Taken"]);
    let mut s = Pty::run(cmd, COLS, ROWS);
    s.wait_for(" status:open,pending   -assignee:none ");
    s.send(":\x15");
    // The line opened on the view's query, then emptied by Ctrl-U.
    s.wait_until(std::time::Duration::from_secs(10), |sc| {
        sc.contains("query · conversations") && !sc.contains("│: status")
    });
    s.press_until("\x1b[A", "│: status:open,pending -assignee:none");
    // The refused query was never run, so it is not in the history.
    s.send("\x1b[A");
    s.wait_for("│: status:open ");
    s.send("\x1b");
    s.wait_gone("query · conversations", std::time::Duration::from_secs(5));
    s.send("q");
    assert_eq!(s.wait_exit(std::time::Duration::from_secs(10)), Some(0));
}
