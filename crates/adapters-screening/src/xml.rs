//! What the XML readers (UN, OFAC advanced, EU, UK) share: the `quick-xml` event loop every
//! file is streamed through, with the checks every format makes alike.
//!
//! A file that is not well-formed XML, whose root element is not the format's (or that holds
//! a second one), that has text, character data or a reference outside its root, or that
//! ends before its root closes (a truncated download) is [`ReadError::Malformed`]. The five
//! XML entities and character references are resolved; any other reference is handed to the
//! reader as unreadable (it skips its record). Comments, processing instructions, the XML
//! declaration and a document type are not read. What the elements mean is each reader's.
//!
//! A reader gathers each of its records into one tree ([`Element`], built by [`RecordTree`]
//! from the record's start tag to its end) and maps the tree whole: every reader's record
//! has the same shape, names, attributes, text and problems read by the same rules.

use crate::ReadError;
use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::{BytesRef, BytesStart, Event};
use quick_xml::reader::Reader;
use quick_xml::XmlVersion;

/// The error for a file that is not a valid `format` file.
pub(crate) fn malformed(format: &'static str, detail: impl Into<String>) -> ReadError {
    ReadError::Malformed {
        format,
        detail: detail.into(),
    }
}

/// How a format names its elements: which part of a name as written is matched, the
/// root's against the format's and every record element's by its reader.
#[derive(Copy, Clone, Debug)]
pub(crate) enum Naming {
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
    pub naming: Naming,
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
        let name = layout.naming.of(raw);
        let shown = match layout.naming {
            Naming::AfterLastPrefix => raw,
            Naming::Qualified | Naming::Local => name,
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

impl Naming {
    /// The part of `raw` (a name as written) the format matches.
    pub(crate) fn of(self, raw: &str) -> &str {
        match self {
            Naming::Qualified => raw,
            Naming::AfterLastPrefix => raw.rsplit_once(':').map_or(raw, |(_, l)| l),
            Naming::Local => raw.split_once(':').map_or(raw, |(_, l)| l),
        }
    }
}

/// One element of a record as read: its name (by the format's [`Naming`]), its attributes
/// (values normalised as XML 1.0 says, keys named like elements), its own text (children's
/// text is theirs) and its children, in file order.
#[derive(Debug, Default)]
pub(crate) struct Element {
    pub name: String,
    pub attrs: Vec<(String, String)>,
    pub text: String,
    pub children: Vec<Element>,
    /// The first thing in this element (not below it) that could not be read: an attribute,
    /// or a reference in its text (or in elements too deep to keep).
    pub bad: Option<String>,
}

impl Element {
    /// The element of `start`, and whether its attribute list could be read to its end
    /// (`Err` names what stopped it; the attributes read before it are kept).
    fn read(start: &BytesStart<'_>, naming: Naming) -> (Element, Result<(), String>) {
        let mut element = Element {
            name: naming.of(start.name().as_ref()).to_owned(),
            ..Element::default()
        };
        for attr in start.attributes() {
            let attr = match attr {
                Ok(attr) => attr,
                Err(e) => {
                    let why = format!("unreadable attributes on <{}>: {e}", element.name);
                    element.bad.get_or_insert_with(|| why.clone());
                    return (element, Err(why));
                }
            };
            let key = naming.of(attr.key.as_ref()).to_owned();
            match attr.normalized_value(XmlVersion::Implicit1_0) {
                Ok(v) => element.attrs.push((key, v.into_owned())),
                Err(e) => {
                    element.bad.get_or_insert_with(|| {
                        format!("unreadable attribute {key} on <{}>: {e}", element.name)
                    });
                }
            }
        }
        (element, Ok(()))
    }

    /// The element's own text as a value: whitespace collapsed, trimmed; `None` when empty.
    pub(crate) fn value(&self) -> Option<String> {
        crate::text::value(&self.text)
    }

    /// The attribute `key`, trimmed.
    pub(crate) fn attr(&self, key: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.trim())
    }

    /// The first child named `name`.
    pub(crate) fn child(&self, name: &str) -> Option<&Element> {
        self.children.iter().find(|c| c.name == name)
    }

    /// The children named `name`, in file order.
    pub(crate) fn children<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Element> {
        self.children.iter().filter(move |c| c.name == name)
    }

    /// The elements at `path` below this one, in file order; a step `*` is any name.
    pub(crate) fn at(&self, path: &[&str]) -> Vec<&Element> {
        let mut here: Vec<&Element> = vec![self];
        for step in path {
            here = here
                .into_iter()
                .flat_map(|e| e.children.iter())
                .filter(|c| *step == "*" || c.name == *step)
                .collect();
        }
        here
    }

    /// The first problem in this element or below it (depth first, in file order).
    pub(crate) fn first_bad(&self) -> Option<&str> {
        self.bad
            .as_deref()
            .or_else(|| self.children.iter().find_map(Element::first_bad))
    }
}

/// One record being gathered, from its start tag to its end: the elements open in it, and
/// how many elements too deep to keep are open below them.
pub(crate) struct RecordTree {
    naming: Naming,
    /// How many levels are kept, the record's own element included.
    max_depth: usize,
    stack: Vec<Element>,
    ignored: usize,
}

impl RecordTree {
    /// A record opened by `start`; `Err` as [`RecordTree::open`]'s.
    pub(crate) fn new(
        start: &BytesStart<'_>,
        naming: Naming,
        max_depth: usize,
    ) -> (RecordTree, Result<(), String>) {
        let (root, read) = Element::read(start, naming);
        let tree = RecordTree {
            naming,
            max_depth: max_depth.max(1),
            stack: vec![root],
            ignored: 0,
        };
        (tree, read)
    }

    /// An element opens inside the record. It is kept (within the depth kept) even when its
    /// attribute list cannot be read to its end; `Err` names that, for a format that refuses
    /// the file for it (the element's `bad` has it too).
    pub(crate) fn open(&mut self, start: &BytesStart<'_>) -> Result<(), String> {
        if self.ignored > 0 || self.stack.len() >= self.max_depth {
            self.ignored += 1;
            return Ok(());
        }
        let (element, read) = Element::read(start, self.naming);
        self.stack.push(element);
        read
    }

    /// The innermost open element closes: the record, when that was the record's own.
    pub(crate) fn close(&mut self) -> Option<Element> {
        if self.ignored > 0 {
            self.ignored -= 1;
            return None;
        }
        let element = self.stack.pop()?;
        match self.stack.last_mut() {
            Some(parent) => {
                parent.children.push(element);
                None
            }
            None => Some(element),
        }
    }

    /// Text inside the innermost open element (dropped below the depth kept).
    pub(crate) fn text(&mut self, text: &str) {
        if self.ignored == 0 {
            if let Some(element) = self.stack.last_mut() {
                element.text.push_str(text);
            }
        }
    }

    /// Something in the record that cannot be read: noted on the innermost element kept,
    /// however deep it was, so that the record is never read as if it were not there.
    pub(crate) fn unreadable(&mut self, why: String) {
        if let Some(element) = self.stack.last_mut() {
            element.bad.get_or_insert(why);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads `xml` (one record, the root's only child) into its tree.
    fn tree(xml: &str, naming: Naming, max_depth: usize) -> (Element, Vec<String>) {
        struct One {
            naming: Naming,
            max_depth: usize,
            record: Option<RecordTree>,
            done: Option<Element>,
            refused: Vec<String>,
        }
        impl Handler for One {
            fn open(&mut self, start: &BytesStart<'_>, depth: usize) -> Result<(), ReadError> {
                let read = match self.record.as_mut() {
                    Some(tree) => tree.open(start),
                    None if depth == 1 => {
                        let (tree, read) = RecordTree::new(start, self.naming, self.max_depth);
                        self.record = Some(tree);
                        read
                    }
                    None => Ok(()),
                };
                self.refused.extend(read.err());
                Ok(())
            }
            fn close(&mut self, _depth: usize) {
                if let Some(done) = self.record.as_mut().and_then(RecordTree::close) {
                    self.done = Some(done);
                    self.record = None;
                }
            }
            fn text(&mut self, _depth: usize, text: &str) {
                if let Some(tree) = self.record.as_mut() {
                    tree.text(text);
                }
            }
            fn unreadable(&mut self, why: String) {
                if let Some(tree) = self.record.as_mut() {
                    tree.unreadable(why);
                }
            }
        }
        let layout = Layout {
            format: "test",
            root: "list",
            naming,
            expand_empty_elements: true,
            refuse_cdata_outside_root: false,
        };
        let mut one = One {
            naming,
            max_depth,
            record: None,
            done: None,
            refused: Vec::new(),
        };
        read(xml.as_bytes(), &layout, &mut one).unwrap();
        (one.done.unwrap(), one.refused)
    }

    #[test]
    fn a_record_is_its_elements_attributes_and_own_text_in_file_order() {
        let (r, refused) = tree(
            "<list><p:rec id=' 7 '><name>A<![CDATA[ &]]>&amp;B</name>\
             <doc kind='passport'><n>1</n></doc><doc><n>2</n><n>3</n></doc></p:rec></list>",
            Naming::AfterLastPrefix,
            8,
        );
        assert!(refused.is_empty());
        assert_eq!((r.name.as_str(), r.attr("id")), ("rec", Some("7")));
        assert_eq!(r.child("name").unwrap().text, "A &&B");
        assert_eq!(r.children("doc").count(), 2);
        let numbers: Vec<String> = r
            .at(&["doc", "n"])
            .into_iter()
            .filter_map(Element::value)
            .collect();
        assert_eq!(numbers, ["1", "2", "3"]);
        assert_eq!(r.at(&["*", "n"]).len(), 3);
        assert!(r.at(&["doc", "missing"]).is_empty());
        assert_eq!(r.first_bad(), None);
    }

    #[test]
    fn elements_below_the_depth_kept_are_dropped_but_their_problems_are_not() {
        let (r, _) = tree(
            "<list><rec><a>x<b>y<c>z&bogus;</c></b></a></rec></list>",
            Naming::Qualified,
            3,
        );
        let b = &r.at(&["a", "b"])[0];
        assert!(b.children.is_empty(), "c is below the depth kept");
        assert_eq!(b.text, "y");
        // The reference too deep to keep still marks the record unreadable.
        assert_eq!(b.bad.as_deref(), Some("unknown XML reference &bogus;"));
        assert_eq!(r.first_bad(), Some("unknown XML reference &bogus;"));
    }

    #[test]
    fn an_attribute_that_cannot_be_read_marks_its_element_and_tells_the_reader() {
        let (r, refused) = tree(
            "<list><rec><ok v='1'/><dup a='1' a='2'/><ent w='&bogus;' x='2'/></rec></list>",
            Naming::Qualified,
            4,
        );
        // A broken attribute list is told (a format may refuse the file for it); the
        // element is kept all the same, so the tree stays in step with the file.
        assert_eq!(refused.len(), 1);
        assert!(
            refused[0].starts_with("unreadable attributes on <dup>"),
            "{refused:?}"
        );
        assert_eq!(r.children.len(), 3);
        let ent = r.child("ent").unwrap();
        assert!(ent
            .bad
            .as_deref()
            .unwrap()
            .starts_with("unreadable attribute w on <ent>"));
        assert_eq!(ent.attr("x"), Some("2"));
        assert!(r
            .first_bad()
            .unwrap()
            .starts_with("unreadable attributes on <dup>"));
    }

    #[test]
    fn each_naming_reads_names_and_attribute_keys_alike() {
        for (naming, name, key) in [
            (Naming::Qualified, "a:b:rec", "x:k"),
            (Naming::AfterLastPrefix, "rec", "k"),
            (Naming::Local, "b:rec", "k"),
        ] {
            let (r, _) = tree("<list><a:b:rec x:k='v'/></list>", naming, 2);
            assert_eq!((r.name.as_str(), r.attrs[0].0.as_str()), (name, key));
        }
    }
}
