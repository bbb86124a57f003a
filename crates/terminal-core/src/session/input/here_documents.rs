//! The here-documents a shell command line opens (`<<EOF`, `<<-'EOF'`, `<< "END"`): the lines
//! after it up to the delimiter are the document's body, data for the command, not commands.

use std::collections::VecDeque;

/// A here-document a line asked for: its delimiter, and whether leading TABs are stripped
/// from its lines (`<<-`).
pub(super) struct HereDocument {
    delimiter: Vec<u8>,
    strip_tabs: bool,
}

impl HereDocument {
    /// The word that ends it, alone on a line.
    pub(super) fn delimiter(&self) -> &[u8] {
        &self.delimiter
    }

    /// Whether `line`, a line of its body, is the delimiter that ends it.
    pub(super) fn ends_at(&self, line: &[u8]) -> bool {
        let line = if self.strip_tabs {
            &line[line.iter().take_while(|&&b| b == b'\t').count()..]
        } else {
            line
        };
        line == self.delimiter.as_slice()
    }
}

/// Reads the word of a here-document operator whose `<<` ends before `at` in `line`
/// (`<<EOF`, `<<-'EOF'`, `<< "END"`), queueing the here-document: where the line goes on.
pub(super) fn here_document(
    line: &[u8],
    mut at: usize,
    pending: &mut VecDeque<HereDocument>,
) -> usize {
    let strip_tabs = line.get(at) == Some(&b'-');
    at += usize::from(strip_tabs);
    while line.get(at).is_some_and(|&b| b == b' ' || b == b'\t') {
        at += 1;
    }
    let mut delimiter = Vec::new();
    let mut quote = None;
    while let Some(&b) = line.get(at) {
        match (quote, b) {
            (Some(q), _) if b == q => quote = None,
            (Some(_), _) => delimiter.push(b),
            (None, b'\'' | b'"') => quote = Some(b),
            (None, b'\\') => {
                at += 1;
                delimiter.extend(line.get(at));
            }
            (None, _) if b" \t;|&<>()".contains(&b) => break,
            (None, _) => delimiter.push(b),
        }
        at += 1;
    }
    if !delimiter.is_empty() {
        pending.push_back(HereDocument {
            delimiter,
            strip_tabs,
        });
    }
    at
}
