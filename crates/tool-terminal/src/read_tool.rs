//! `terminal_read`: a page of a session's retained scrollback, bounded by the result cap
//! (whole lines, a pointer to the older lines a cut page left out), with its footer counting
//! back from the newest line, or in `fromLine`'s numbers for a page asked for by it.

use std::sync::Arc;

use super::*;

/// `terminal_read`.
pub(crate) struct ReadTool(pub(crate) Arc<Shared>);

impl Tool for ReadTool {
    type Args = ReadArgs;
    type Output = ReadOutput;

    fn name(&self) -> &'static str {
        "terminal_read"
    }
    fn arrival(&self) -> Option<dsh_tools::Arrival> {
        Some(crate::SESSION_CALL)
    }
    fn description(&self) -> String {
        "Read a bounded page of retained output from a persistent terminal without sending input. While a full-screen program (vim, less) holds the terminal, the newest lines are its screen: the lines the shell's screen showed when it started are back in pages once it exits (older scrollback stays readable)."
            .to_owned()
    }
    async fn execute(&self, args: ReadArgs, call: ToolCall) -> Result<ReadOutput, ToolError> {
        let owner = require_agent(&call)?;
        let id = session_id(&args.session_id)?;
        // Calls to the session written together with this one, before it, have started first
        // (a read is how an agent looks at a send still running, so it does not wait for it).
        call.arrival_turn_started().await?;
        let page = self
            .0
            .terminals
            .read(
                &owner,
                &id,
                ReadRequest {
                    // A line number takes the place of an offset given with it (a pointer's
                    // structured form has both; the number stays right as output goes on).
                    offset: args.offset.filter(|_| args.from_line.is_none()),
                    count: args.count,
                    from_line: args.from_line,
                },
            )
            .map_err(terminal_error)?;
        call.arrival_done();
        // A page of the newest lines shows the session as it is.
        if page.line_begin == 0
            && let Some(background) = self.0.background.as_ref()
        {
            background.clear_gone_reader(&id);
        }
        let mut page = page;
        // The number of the page's first line, and the lines it has, before the cuts below.
        let (core_first, core_lines) = (page.first_line, page.line_end - page.line_begin);
        let max_bytes = self.0.config.max_result_bytes;
        // A first line the core's byte bound cut leads with the line's start it kept.
        let joined = page
            .line_start
            .take()
            .map(|start| fit::join_line_start(&page.text, &start, max_bytes / 4, false));
        // The footer a page has when nothing of it is cut (in `fromLine`'s numbers, its first
        // line's number as large as the cuts below can make it).
        let plain_footer = render::read_footer(
            page.line_begin,
            page.line_end,
            page.total_lines,
            args.from_line
                .and(core_first)
                .map(|first| first + core_lines),
        )
        .len()
            + if page.alternate_screen {
                render::READ_ALTERNATE_SCREEN.len()
            } else {
                0
            };
        // The requested range's older end, and the pointer to its lines a cut page leaves out
        // (its numbers are at most as long as these).
        let wanted_end = page
            .line_begin
            .saturating_add(args.count.unwrap_or(DEFAULT_PAGE_LINES))
            .min(page.total_lines);
        let widest_older = ReadPointer {
            session_id: args.session_id.clone(),
            offset: wanted_end,
            count: wanted_end,
            // A page read by offset points by number too (see below).
            from_line: args
                .from_line
                .or(core_first.map(|first| first + core_lines)),
        };
        // A page that does not fit pages fewer lines, whole; only a line too long for a page
        // of its own (beside the footer, the pointer and the marker; at least a quarter of the
        // cap) keeps its start and end, as a page cannot be split inside a line; the marker
        // says how to see the rest.
        let one_line_room = max_bytes
            .saturating_sub(
                plain_footer
                    + render::older_line(&widest_older).len()
                    + render::TRUNCATED.len()
                    + render::cut_over(0),
            )
            .max(max_bytes / 4);
        if page.text.len() + plain_footer > max_bytes
            && let (std::borrow::Cow::Owned(text), true) =
                render::cut_long_lines(&page.text, one_line_room)
        {
            page.text = text;
            page.truncated = true;
        }
        if let Some(first) = joined {
            let end = page.text.find('\n').unwrap_or(page.text.len());
            page.text.replace_range(..end, &first);
            page.truncated = true;
        }
        // Room for the footer, the pointer and the truncation marker, so the rendered page
        // keeps every line the footer counts (the footer can only get shorter); a whole page
        // that fits beside the plain footer needs neither the pointer nor the marker.
        let whole = !page.truncated
            && page.line_end >= wanted_end
            && page.text.len() + plain_footer <= max_bytes;
        let (pointer, marker) = if whole {
            (0, 0)
        } else {
            (
                render::older_line(&widest_older).len(),
                render::TRUNCATED.len(),
            )
        };
        let (mut text, mut cut) = bound_structured(
            page.text.clone(),
            max_bytes.saturating_sub(plain_footer + pointer + marker),
        );
        // A cap too small for a line beside the pointer: lines without it (the footer's range
        // says where the next page starts; the render leaves the pointer out, the structured
        // result keeps it), rather than a page of none.
        if text.is_empty() && pointer > 0 {
            (text, cut) = bound_structured(
                page.text.clone(),
                max_bytes.saturating_sub(plain_footer + marker),
            );
        }
        // A line the cap left only the end of would read as a whole line the footer counts
        // (`E104` for `LINE104`): none, rather than a line cut at its start with no marker.
        let kept_from = page.text.len() - text.len();
        if cut && kept_from > 0 && !page.text[..kept_from].ends_with('\n') {
            text.clear();
        }
        page.text = text;
        if cut {
            // Older lines were cut from the top: the page now ends sooner (newest-relative).
            // Cut to nothing (a cap smaller than the footer leaves no room), it holds no line.
            page.line_end = if page.text.is_empty() {
                page.line_begin
            } else {
                page.line_begin + page.text.split('\n').count() as u64
            };
            page.truncated = true;
        }
        let mut output = ReadOutput::from(page);
        // The older lines of the range the page left out, by number (from the range's first
        // line up to the page's, which the cuts above moved down).
        // None past the oldest line kept: a page that reaches it starts where the scrollback
        // does, and the range's lines before it were dropped (its footer says so).
        let first_line =
            core_first.map(|first| first + core_lines - (output.line_end - output.line_begin));
        if args.from_line.is_some() && output.line_end > output.line_begin {
            output.first_line = first_line;
        }
        let older = match args.from_line {
            _ if output.line_end >= output.total_lines => None,
            Some(from) => first_line
                .filter(|&first| first > from)
                .map(|first| (first - from, Some(from))),
            // By number too when the page's first line has one: output that goes on while the
            // agent pages moves offsets, not numbers (following an offset pointer then read
            // lines twice).
            None => (output.line_end < wanted_end).then(|| {
                let count = wanted_end - output.line_end;
                (count, first_line.map(|first| first.saturating_sub(count)))
            }),
        };
        if let Some((count, from_line)) = older
            && !output.text.is_empty()
        {
            output.older = Some(ReadPointer {
                session_id: args.session_id.clone(),
                offset: output.line_end,
                count,
                from_line,
            });
        }
        Ok(output)
    }
    fn render(&self, _args: &ReadArgs, out: &ReadOutput) -> String {
        render::render_read(out, self.0.config.max_result_bytes)
    }
    fn finalize_content(&self, content: &[Content]) -> Option<Vec<Content>> {
        self.0.finalize(content)
    }
    fn present_call(&self, args: &ReadArgs) -> Option<Card> {
        let mut card = generic_card(format!("Read terminal {}", args.session_id), "read");
        card.raw_input = Some(serde_json::json!({
            "sessionId": args.session_id,
            "offset": args.offset,
            "count": args.count,
        }));
        Some(card)
    }
}
