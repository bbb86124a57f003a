//! Replies to the terminal queries that come as DCS strings, as xterm gives them: DECRQSS
//! (`DCS $ q Pt ST`: a setting's current value; vim and neovim ask for the cursor style and
//! the colours, tmux and others for the scroll region) and XTGETTCAP (`DCS + q <hex names>
//! ST`: a terminfo capability; neovim asks for `Tc`/`RGB`, others for `TN` and `Co`). A
//! query left unanswered makes the program wait out its timeout and then take the next input
//! for the reply; a setting or capability not kept gets xterm's "not valid" reply.

/// A DCS body longer than this is no query (sixel images, tmux passthrough): not kept.
pub(super) const MAX_QUERY_BYTES: usize = 256;

/// The terminal name XTGETTCAP's `TN` gives (the sessions' `TERM`).
const TERMINAL_NAME: &str = "xterm-256color";

/// What a DCS reply needs to know of the screen.
pub(super) struct ScreenFacts {
    /// The current SGR attributes as vt100 writes them (`ESC [ m` then the set ones).
    pub(super) attributes: String,
    /// The scroll region, 1-based rows.
    pub(super) region: (u16, u16),
}

impl super::Screen {
    /// Answers the DCS string `body` when it is a terminal query ([`reply`]).
    pub(super) fn answer_dcs(&mut self, body: &[u8]) {
        let rows = self.config.rows.max(1);
        let facts = ScreenFacts {
            attributes: self.parser.screen().attributes_formatted(),
            region: self.region.map_or((1, rows), |r| (r.top + 1, r.bottom + 1)),
        };
        for reply in reply(body, &facts).unwrap_or_default() {
            self.parser.callbacks_mut().reply(reply);
        }
    }
}

/// The reply to the DCS string whose body (after `ESC P`, before `ST`) is `body`: `None` when
/// it is no query this terminal answers.
pub(super) fn reply(body: &[u8], facts: &ScreenFacts) -> Option<Vec<Vec<u8>>> {
    if let Some(setting) = body.strip_prefix(b"$q") {
        return Some(vec![decrqss(setting, facts)]);
    }
    let names = body.strip_prefix(b"+q")?;
    Some(names.split(|&b| b == b';').map(xtgettcap).collect())
}

/// DECRQSS: `DCS 1 $ r <value><setting> ST`, or `DCS 0 $ r ST` for a setting not kept.
fn decrqss(setting: &[u8], facts: &ScreenFacts) -> Vec<u8> {
    let value = match setting {
        b"m" => Some(sgr_params(&facts.attributes)),
        b"r" => Some(format!("{};{}", facts.region.0, facts.region.1)),
        // Cursor style (DECSCUSR): a blinking block, xterm's default.
        b" q" => Some("1".to_owned()),
        _ => None,
    };
    match value {
        Some(value) => {
            let setting = String::from_utf8_lossy(setting);
            format!("\x1bP1$r{value}{setting}\x1b\\").into_bytes()
        }
        None => b"\x1bP0$r\x1b\\".to_vec(),
    }
}

/// The parameters of the SGR that sets `attributes` (`ESC [ m ESC [ 1 ; 31 m` → `0;1;31`).
fn sgr_params(attributes: &str) -> String {
    let mut params = vec!["0"];
    for part in attributes.split("\x1b[") {
        let part = part.trim_end_matches('m');
        if !part.is_empty() {
            params.push(part);
        }
    }
    params.join(";")
}

/// XTGETTCAP for one hex-encoded capability name: `DCS 1 + r <name>=<hex value> ST` for a
/// capability kept, else `DCS 0 + r <name> ST`.
fn xtgettcap(hex_name: &[u8]) -> Vec<u8> {
    let name = hex::decode(hex_name).ok();
    let value = match name.as_deref() {
        Some(b"TN" | b"name") => Some(TERMINAL_NAME),
        Some(b"Co" | b"colors") => Some("256"),
        _ => None,
    };
    let hex_name = String::from_utf8_lossy(hex_name);
    match value {
        Some(value) => {
            format!("\x1bP1+r{hex_name}={}\x1b\\", hex::encode_upper(value)).into_bytes()
        }
        None => format!("\x1bP0+r{hex_name}\x1b\\").into_bytes(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts() -> ScreenFacts {
        ScreenFacts {
            attributes: "\x1b[m\x1b[1;31m".to_owned(),
            region: (1, 24),
        }
    }

    fn text(replies: Option<Vec<Vec<u8>>>) -> Vec<String> {
        replies
            .unwrap_or_default()
            .into_iter()
            .map(|r| String::from_utf8(r).unwrap())
            .collect()
    }

    #[test]
    fn settings_and_capabilities_are_answered_as_xterm_does() {
        assert_eq!(text(reply(b"$qm", &facts())), ["\x1bP1$r0;1;31m\x1b\\"]);
        assert_eq!(text(reply(b"$qr", &facts())), ["\x1bP1$r1;24r\x1b\\"]);
        assert_eq!(text(reply(b"$q q", &facts())), ["\x1bP1$r1 q\x1b\\"]);
        assert_eq!(text(reply(b"$q\"p", &facts())), ["\x1bP0$r\x1b\\"]);
        // `TN` and `Co` known, `RGB` not (no direct colour), each answered.
        assert_eq!(
            text(reply(b"+q544e;436f;524742", &facts())),
            [
                "\x1bP1+r544e=787465726D2D323536636F6C6F72\x1b\\",
                "\x1bP1+r436f=323536\x1b\\",
                "\x1bP0+r524742\x1b\\",
            ]
        );
        // Not queries: sixel data, tmux passthrough.
        assert_eq!(reply(b"0;1q\"1;1;10;10#0", &facts()), None);
        assert_eq!(reply(b"tmux;\x1b\x1b[c", &facts()), None);
    }
}
