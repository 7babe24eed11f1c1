//! What the XML readers (UN, OFAC advanced, EU, UK) share: the `quick-xml` event loop every
//! file is streamed through, with the checks every format makes alike.
//!
//! A file that is not well-formed XML, whose root element is not the format's (or that holds
//! a second one), that has text, character data or a reference outside its root, or that
//! ends before its root closes (a truncated download) is [`ReadError::Malformed`]. The five
//! XML entities and character references are resolved; any other reference is handed to the
//! reader as unreadable (it skips its record). Comments, processing instructions, the XML
//! declaration and a document type are not read. What the elements mean is each reader's.

use crate::ReadError;
use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::{BytesRef, BytesStart, Event};
use quick_xml::reader::Reader;

/// The error for a file that is not a valid `format` file.
pub(crate) fn malformed(format: &'static str, detail: impl Into<String>) -> ReadError {
    ReadError::Malformed {
        format,
        detail: detail.into(),
    }
}

/// Which part of the root element's name must be the format's root.
#[derive(Copy, Clone, Debug)]
pub(crate) enum RootName {
    /// The name as written, any prefix included (`<un:CONSOLIDATED_LIST>` is not the root).
    Qualified,
    /// The part after the last `:`; messages show the name as written.
    AfterLastPrefix,
    /// The local name (after the first `:`); messages show it too.
    Local,
}

/// What a format's file must look like around its records.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Layout {
    /// The format's name, for [`ReadError::Malformed`].
    pub format: &'static str,
    /// The root element's name.
    pub root: &'static str,
    pub root_name: RootName,
    /// Whether an empty element (`<a/>`) is read as a start and an end (`<a></a>`).
    pub expand_empty_elements: bool,
    /// Whether CDATA outside the root is refused even when blank; otherwise it is text, and
    /// refused only when it is not blank.
    pub refuse_cdata_outside_root: bool,
}

/// A reader of one format: what it does with the elements and text the loop reads.
pub(crate) trait Handler {
    /// A start tag with `depth` elements open around it. At depth 0 it is the root, already
    /// checked against the [`Layout`].
    fn open(&mut self, start: &BytesStart<'_>, depth: usize) -> Result<(), ReadError>;

    /// The end of an element; `depth` elements stay open.
    fn close(&mut self, depth: usize);

    /// Text (character data, CDATA or a resolved reference) read while `depth` elements are
    /// open; outside the root only blank text.
    fn text(&mut self, depth: usize, text: &str);

    /// A reference inside the root that cannot be resolved (`why` names it).
    fn unreadable(&mut self, why: String);
}

/// Streams a whole file through `handler`, or refuses it.
pub(crate) fn read(
    xml: &[u8],
    layout: &Layout,
    handler: &mut impl Handler,
) -> Result<(), ReadError> {
    let malformed = |detail: String| malformed(layout.format, detail);
    let mut reader = Reader::from_reader(xml);
    let config = reader.config_mut();
    config.check_end_names = true;
    config.expand_empty_elements = layout.expand_empty_elements;

    let mut depth = 0usize;
    let mut root_seen = false;
    let mut root_closed = false;
    loop {
        let event = reader.read_event().map_err(|e| {
            malformed(format!(
                "XML error at byte {}: {e}",
                reader.error_position()
            ))
        })?;
        match event {
            Event::Start(start) => {
                open(layout, &start, depth, root_closed, handler)?;
                root_seen = true;
                depth += 1;
            }
            Event::Empty(start) => {
                open(layout, &start, depth, root_closed, handler)?;
                root_seen = true;
                handler.close(depth);
                root_closed |= depth == 0;
            }
            Event::End(_) => {
                depth = depth.saturating_sub(1);
                handler.close(depth);
                root_closed |= depth == 0;
            }
            Event::Text(text) => {
                let raw = text.xml10_content();
                if depth == 0 && !raw.trim().is_empty() {
                    return Err(malformed("text outside the root element".into()));
                }
                handler.text(depth, &raw);
            }
            Event::CData(data) => {
                let raw = data.xml10_content();
                if depth == 0 && layout.refuse_cdata_outside_root {
                    return Err(malformed("character data outside the root element".into()));
                }
                if depth == 0 && !raw.trim().is_empty() {
                    return Err(malformed("text outside the root element".into()));
                }
                handler.text(depth, &raw);
            }
            Event::GeneralRef(reference) => {
                if depth == 0 {
                    return Err(malformed("a reference outside the root element".into()));
                }
                match resolve(&reference) {
                    Some(s) => handler.text(depth, &s),
                    None => handler
                        .unreadable(format!("unknown XML reference &{};", reference.as_ref())),
                }
            }
            Event::Eof => break,
            Event::Comment(_) | Event::Decl(_) | Event::PI(_) | Event::DocType(_) => {}
        }
    }
    if !root_seen {
        return Err(malformed(format!("no <{}> root element", layout.root)));
    }
    if depth > 0 {
        return Err(malformed(format!(
            "the file ends inside an element ({depth} left open): truncated?"
        )));
    }
    Ok(())
}

/// Hands a start tag to the handler, the root once checked.
fn open(
    layout: &Layout,
    start: &BytesStart<'_>,
    depth: usize,
    root_closed: bool,
    handler: &mut impl Handler,
) -> Result<(), ReadError> {
    if depth == 0 {
        let qname = start.name();
        let raw: &str = qname.as_ref();
        let (name, shown) = match layout.root_name {
            RootName::Qualified => (raw, raw),
            RootName::AfterLastPrefix => (raw.rsplit_once(':').map_or(raw, |(_, l)| l), raw),
            RootName::Local => {
                let local = raw.split_once(':').map_or(raw, |(_, l)| l);
                (local, local)
            }
        };
        if root_closed {
            return Err(malformed(
                layout.format,
                format!("a second root element <{shown}>"),
            ));
        }
        if name != layout.root {
            return Err(malformed(
                layout.format,
                format!("the root element is <{shown}>, not <{}>", layout.root),
            ));
        }
    }
    handler.open(start, depth)
}

/// The text a reference stands for: a character reference or one of the five XML entities.
fn resolve(reference: &BytesRef<'_>) -> Option<String> {
    match reference.resolve_char_ref() {
        Ok(Some(c)) => Some(c.to_string()),
        Ok(None) => resolve_predefined_entity(reference.as_ref()).map(str::to_owned),
        Err(_) => None,
    }
}
