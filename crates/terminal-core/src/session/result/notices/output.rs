//! The notices about output text a result's viewport shows differently from what the program
//! printed: strings a line end cut off, line-drawing text, rows written over one another,
//! invisible characters.

#[cfg(doc)]
use super::super::SettleFacts;

/// `; N more <what>` for the `count - 1` cases a notice quoting the first of `count` leaves
/// unquoted (`one` and `many`: the words after the number); empty for one case.
fn more_like_it(count: u64, one: &str, many: &str) -> String {
    match count.saturating_sub(1) {
        0 => String::new(),
        1 => format!("; 1 more {one}"),
        n => format!("; {n} more {many}"),
    }
}

/// The notice for [`SettleFacts::unended_string`]: the first `string` a line end cut off,
/// quoting its body, and how many were (`count`).
pub(in crate::session::result) fn unended_string_notice(
    string: &crate::screen::notes::UnendedString,
    count: u64,
) -> String {
    let kind = match string.introducer {
        b']' => "`ESC ]`, an OSC",
        b'P' => "`ESC P`, a DCS",
        b'X' => "`ESC X`, an SOS",
        b'^' => "`ESC ^`, a PM",
        _ => "`ESC _`, an APC",
    };
    let more = more_like_it(
        count,
        "such string was cut off as well",
        "such strings were cut off as well",
    );
    format!(
        "[screen: the output began an escape string ({kind}) and did not end it before its \
         line did: as on a terminal, nothing of the string shows, so the text it took in up to \
         the line's end is missing from the output: {}{more}]",
        super::quoted_line(&String::from_utf8_lossy(&string.body))
    )
}

/// The notice for [`SettleFacts::line_drawn_text`]: the first line of `text` printed in DEC
/// line drawing, and how many were (`count`).
pub(in crate::session::result) fn line_drawn_text_notice(text: &str, count: u64) -> String {
    let more = more_like_it(
        count,
        "line came out so as well",
        "lines came out so as well",
    );
    format!(
        "[screen: the output switched the terminal to its line-drawing character set (`ESC ( \
         0`) and printed text in it: as on a terminal, its letters show as box parts and \
         symbols; the first such line was printed as {}{more}. `ESC ( B` (`printf '\\e(B'`, or \
         `tput sgr0`) switches back; the prompt does so by itself]",
        super::quoted_line(text)
    )
}

/// The notice for [`SettleFacts::mixed_row`]: the first such `row`, and how many such rows
/// there were (`rows`).
pub(in crate::session::result) fn mixed_row_notice(row: &str, rows: u64) -> String {
    let more = more_like_it(rows, "row like it", "rows like it");
    format!(
        "[screen: texts were written on one row, each over the one before, after \
         carriage returns (`\\r` with no `\\n`: a file with CR line ends, or a status line \
         redrawn shorter without an erase), and the row shows the newest with the end of a \
         longer, earlier one after it, which may read as a line no program wrote: {}; the \
         texts written over show nowhere{more}. `cat -v` shows the carriage returns as ^M, and \
         `tr '\\r' '\\n' < FILE` each text on its own line]",
        super::quoted_line(row)
    )
}

/// The notice for [`SettleFacts::concealed`]: `count` characters printed concealed.
pub(in crate::session::result) fn concealed_notice(count: u64) -> String {
    let which = if count == 1 {
        "1 character".to_owned()
    } else {
        format!("{count} characters")
    };
    format!(
        "[screen: the output printed {which} concealed (the hidden attribute, SGR 8 `ESC [ 8 \
         m`): a terminal shows them as blanks, and so does this text; the command piped \
         through cat -v shows them, with the escape sequences. The shell's prompt turns the \
         attribute off]"
    )
}

/// The notice for [`SettleFacts::invisible`]: `count` invisible characters, the first `c`.
pub(in crate::session::result) fn invisible_notice(c: char, count: u64) -> String {
    let name = crate::screen::invisible::invisible_name(c);
    let which = if count == 1 {
        format!("1 invisible character ({name}, U+{:04X})", u32::from(c))
    } else {
        format!(
            "{count} invisible characters (the first {name}, U+{:04X})",
            u32::from(c)
        )
    };
    format!(
        "[screen: the output holds {which}: a terminal shows nothing for them, and this text \
         leaves out those that start a line, so a line may differ from what the program \
         printed (a byte-order mark before a script's #! makes it fail to run); od -c FILE or \
         cat -A FILE shows them]"
    )
}
