//! A server-sent events decoder over raw bytes, fed chunk by chunk as they arrive.
//!
//! It follows the event-stream grammar of the HTML standard, as far as a client of a model
//! endpoint needs it: a line ends at `\n`, `\r\n` or a lone `\r` (also when the two bytes of
//! `\r\n` arrive in different chunks); a blank line dispatches the event; several `data:`
//! lines join with `\n`; a line starting with `:` is a comment; one space after the field's
//! colon is dropped; `id` and `retry` are ignored (nothing here reconnects); a leading byte
//! order mark is skipped. Lines are decoded as UTF-8 only once complete, so a character split
//! between two chunks arrives whole. An event still open when the body ends is discarded.

/// One dispatched event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SseEvent {
    /// The `event:` field, or `message` when there was none.
    pub event: String,
    /// The `data:` lines, joined with `\n`.
    pub data: String,
}

/// The decoder's state between chunks.
#[derive(Debug, Default)]
pub(crate) struct SseDecoder {
    /// The bytes of the line not yet ended.
    line: Vec<u8>,
    /// The last line ended at a `\r`: a `\n` right after it belongs to the same line end.
    after_cr: bool,
    /// Whether the first bytes (and so a possible byte order mark) have been seen.
    started: bool,
    event: Option<String>,
    data: String,
    /// Whether the event being built has a `data` field (an event without one is not
    /// dispatched).
    has_data: bool,
    /// Lines ended so far, comments and blank lines included: a sign of life.
    lines: u64,
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

impl SseDecoder {
    pub(crate) fn new() -> SseDecoder {
        SseDecoder::default()
    }

    /// How many lines have ended so far (comments and blank lines included).
    pub(crate) fn lines(&self) -> u64 {
        self.lines
    }

    /// Feeds a chunk; returns the events it completed, in order.
    pub(crate) fn push(&mut self, chunk: &[u8]) -> Vec<SseEvent> {
        if self.started {
            return self.push_bytes(chunk);
        }
        // The byte order mark may itself be split between chunks: wait for its three bytes.
        self.line.extend_from_slice(chunk);
        if self.line.len() < BOM.len() && BOM.starts_with(&self.line) {
            return Vec::new();
        }
        self.started = true;
        let buffered = std::mem::take(&mut self.line);
        self.push_bytes(buffered.strip_prefix(BOM).unwrap_or(&buffered))
    }

    fn push_bytes(&mut self, mut rest: &[u8]) -> Vec<SseEvent> {
        let mut events = Vec::new();
        if self.after_cr && !rest.is_empty() {
            // The `\n` of a `\r\n` whose `\r` closed the previous chunk.
            if rest[0] == b'\n' {
                rest = &rest[1..];
            }
            self.after_cr = false;
        }
        while let Some(end) = rest.iter().position(|&b| b == b'\n' || b == b'\r') {
            self.line.extend_from_slice(&rest[..end]);
            let is_cr = rest[end] == b'\r';
            rest = &rest[end + 1..];
            if is_cr {
                match rest.first() {
                    Some(b'\n') => rest = &rest[1..],
                    Some(_) => {}
                    None => self.after_cr = true,
                }
            }
            let line = std::mem::take(&mut self.line);
            if let Some(event) = self.line_ended(&line) {
                events.push(event);
            }
        }
        self.line.extend_from_slice(rest);
        events
    }

    fn line_ended(&mut self, line: &[u8]) -> Option<SseEvent> {
        self.lines += 1;
        if line.is_empty() {
            return self.dispatch();
        }
        if line[0] == b':' {
            return None;
        }
        let line = String::from_utf8_lossy(line);
        let (field, value) = match line.find(':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(' ').unwrap_or(value))
            }
            None => (line.as_ref(), ""),
        };
        match field {
            "event" => self.event = Some(value.to_owned()),
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            _ => {}
        }
        None
    }

    fn dispatch(&mut self) -> Option<SseEvent> {
        let event = self.event.take();
        let data = std::mem::take(&mut self.data);
        if !std::mem::replace(&mut self.has_data, false) {
            return None;
        }
        Some(SseEvent {
            event: event
                .filter(|e| !e.is_empty())
                .unwrap_or_else(|| "message".to_owned()),
            data,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(event: &str, data: &str) -> SseEvent {
        SseEvent {
            event: event.into(),
            data: data.into(),
        }
    }

    /// Feeds `input` in pieces of `size` bytes.
    fn decode(input: &[u8], size: usize) -> Vec<SseEvent> {
        let mut d = SseDecoder::new();
        input.chunks(size).flat_map(|c| d.push(c)).collect()
    }

    #[test]
    fn events_end_at_a_blank_line_and_data_lines_join() {
        let input = b"event: a\ndata: one\ndata: two\n\ndata:three\n\n";
        for size in 1..=input.len() {
            assert_eq!(
                decode(input, size),
                vec![ev("a", "one\ntwo"), ev("message", "three")],
                "chunks of {size}"
            );
        }
    }

    #[test]
    fn crlf_and_lone_cr_end_lines_even_when_split() {
        let input = b"event: a\r\ndata: x\r\n\r\ndata: y\r\rdata: z\n\n";
        for size in 1..=input.len() {
            assert_eq!(
                decode(input, size),
                vec![ev("a", "x"), ev("message", "y"), ev("message", "z")],
                "chunks of {size}"
            );
        }
    }

    #[test]
    fn comments_and_unknown_fields_are_ignored() {
        let input = b": keep-alive\nid: 7\nretry: 10\nfoo: bar\ndata: x\n\n:\n\n";
        assert_eq!(decode(input, 3), vec![ev("message", "x")]);
    }

    #[test]
    fn an_event_without_data_is_not_dispatched() {
        assert_eq!(
            decode(b"event: ping\n\ndata: \n\n", 2),
            vec![ev("message", "")]
        );
    }

    #[test]
    fn only_one_space_after_the_colon_is_dropped() {
        assert_eq!(
            decode(b"data:  two spaces\n\n", 4),
            vec![ev("message", " two spaces")]
        );
    }

    #[test]
    fn an_unterminated_last_event_is_discarded() {
        assert_eq!(decode(b"data: a\n\ndata: b\n", 5), vec![ev("message", "a")]);
        assert_eq!(decode(b"data: a\n\ndata: b", 5), vec![ev("message", "a")]);
    }

    #[test]
    fn multibyte_characters_split_between_chunks_arrive_whole() {
        let input = "data: Åsa Öberg – 🇸🇪 är här\n\n".as_bytes();
        for size in 1..=7 {
            assert_eq!(
                decode(input, size),
                vec![ev("message", "Åsa Öberg – 🇸🇪 är här")]
            );
        }
    }

    #[test]
    fn a_byte_order_mark_is_skipped_even_when_split() {
        let input = b"\xEF\xBB\xBFdata: x\n\n";
        for size in 1..=4 {
            assert_eq!(decode(input, size), vec![ev("message", "x")]);
        }
    }

    #[test]
    fn lines_count_comments_and_blank_lines() {
        let mut d = SseDecoder::new();
        d.push(b": ping\n\n");
        assert_eq!(d.lines(), 2);
    }
}
