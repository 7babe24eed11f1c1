//! A small namespace-aware element tree over quick-xml, enough to read SOAP answers by
//! namespace and local name whatever prefixes the upstream picks; the SOAP 1.1 envelope's
//! body and fault; escaping text for a request.
//!
//! [`parse`] refuses DTDs (so no entity expansion), undeclared prefixes, content after the
//! root and nesting deeper than 64 elements.

use quick_xml::events::Event;
use quick_xml::name::ResolveResult;
use quick_xml::NsReader;

/// Deepest nesting accepted (SOAP answers seen are about ten levels deep).
const MAX_DEPTH: usize = 64;

/// One element: its resolved name, attributes, children and text.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Element {
    /// The namespace URI, if the name is bound to one.
    pub ns: Option<String>,
    /// The local name (without prefix).
    pub name: String,
    /// Attributes by local name (namespace ignored: registry attributes are unqualified;
    /// `xmlns` declarations are left out).
    pub attrs: Vec<(String, String)>,
    /// The child elements, in document order.
    pub children: Vec<Element>,
    /// The element's own text (all text, CDATA and references concatenated, unescaped).
    pub text: String,
}

impl Element {
    /// Whether this element is `{ns}name`.
    pub fn is(&self, ns: &str, name: &str) -> bool {
        self.name == name && self.ns.as_deref() == Some(ns)
    }

    /// The first child `{ns}name`.
    pub fn child(&self, ns: &str, name: &str) -> Option<&Element> {
        self.children.iter().find(|c| c.is(ns, name))
    }

    /// The first child with this local name, whatever its namespace.
    pub fn child_local(&self, name: &str) -> Option<&Element> {
        self.children.iter().find(|c| c.name == name)
    }

    /// An attribute's value by local name.
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The trimmed text, None when empty.
    pub fn text_trimmed(&self) -> Option<&str> {
        let t = self.text.trim();
        (!t.is_empty()).then_some(t)
    }
}

/// The SOAP 1.1 envelope namespace.
pub const NS_SOAP: &str = "http://schemas.xmlsoap.org/soap/envelope/";

/// The `Body` of a SOAP 1.1 envelope; `None` for any other document.
pub fn soap_body(root: &Element) -> Option<&Element> {
    if !root.is(NS_SOAP, "Envelope") {
        return None;
    }
    root.child(NS_SOAP, "Body")
}

/// The `Fault` of a SOAP 1.1 envelope, if it is one.
pub fn soap_fault(root: &Element) -> Option<&Element> {
    soap_body(root)?.child(NS_SOAP, "Fault")
}

/// Text escaped for an XML element or attribute value.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// Parses a whole document into its root element. Any well-formedness problem, an
/// undeclared prefix, a DTD or trailing garbage is an error. The error's text is for
/// debugging: it can name the tags involved, so it belongs in no failure reason.
pub fn parse(bytes: &[u8]) -> Result<Element, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "not UTF-8".to_owned())?;
    let mut reader = NsReader::from_str(text);
    reader.config_mut().check_end_names = true;
    let mut stack: Vec<Element> = Vec::new();
    let mut root: Option<Element> = None;
    loop {
        let (ns, event) = reader
            .read_resolved_event()
            .map_err(|e| format!("XML error: {e}"))?;
        let ns = match ns {
            ResolveResult::Bound(n) => Some(n.as_ref().to_owned()),
            ResolveResult::Unbound => None,
            ResolveResult::Unknown(_) => return Err("undeclared namespace prefix".into()),
        };
        match event {
            Event::Start(_) | Event::Empty(_) if root.is_some() => {
                return Err("content after the root element".into());
            }
            Event::Start(e) => {
                if stack.len() >= MAX_DEPTH {
                    return Err("nesting too deep".into());
                }
                stack.push(open(ns, &e)?);
            }
            Event::Empty(e) => {
                let el = open(ns, &e)?;
                close(&mut stack, &mut root, el);
            }
            Event::End(_) => {
                let el = stack.pop().ok_or("unbalanced end tag")?;
                close(&mut stack, &mut root, el);
            }
            Event::Text(t) => {
                let s = t.xml10_content();
                match stack.last_mut() {
                    Some(top) => top.text.push_str(&s),
                    None if s.trim().is_empty() => {}
                    None => return Err("text outside the root element".into()),
                }
            }
            Event::CData(c) => {
                let s = c.xml10_content();
                stack
                    .last_mut()
                    .ok_or("CDATA outside the root element")?
                    .text
                    .push_str(&s);
            }
            Event::GeneralRef(r) => {
                let resolved = match r.resolve_char_ref() {
                    Ok(Some(c)) => c.to_string(),
                    Ok(None) => quick_xml::escape::resolve_predefined_entity(&r)
                        .ok_or("unknown entity")?
                        .to_owned(),
                    Err(_) => return Err("invalid character reference".into()),
                };
                stack
                    .last_mut()
                    .ok_or("reference outside the root element")?
                    .text
                    .push_str(&resolved);
            }
            Event::Eof => break,
            Event::DocType(_) => return Err("DTDs are not accepted".into()),
            Event::Comment(_) | Event::Decl(_) | Event::PI(_) => {}
        }
    }
    if !stack.is_empty() {
        return Err("the document ends inside an element".into());
    }
    root.ok_or_else(|| "no root element".into())
}

fn open(ns: Option<String>, e: &quick_xml::events::BytesStart<'_>) -> Result<Element, String> {
    let mut attrs = Vec::new();
    for a in e.attributes() {
        let a = a.map_err(|e| format!("bad attribute: {e}"))?;
        let key = a.key.local_name().as_ref().to_owned();
        if a.key.as_ref().starts_with("xmlns") {
            continue;
        }
        let value = a
            .normalized_value(quick_xml::XmlVersion::Implicit1_0)
            .map_err(|e| format!("bad attribute value: {e}"))?
            .into_owned();
        attrs.push((key, value));
    }
    Ok(Element {
        ns,
        name: e.local_name().as_ref().to_owned(),
        attrs,
        children: Vec::new(),
        text: String::new(),
    })
}

fn close(stack: &mut [Element], root: &mut Option<Element>, el: Element) {
    match stack.last_mut() {
        Some(parent) => parent.children.push(el),
        None => *root = Some(el),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn namespaces_and_text() {
        let doc = br#"<?xml version="1.0"?>
            <a:root xmlns:a="urn:a" xmlns="urn:d"><child x="1 &amp; 2">t&amp;u&#65;<![CDATA[<z>]]></child><a:e/></a:root>"#;
        let r = parse(doc).unwrap();
        assert!(r.is("urn:a", "root"));
        let c = r.child("urn:d", "child").unwrap();
        assert_eq!(c.text, "t&uA<z>");
        assert_eq!(c.attr("x"), Some("1 & 2"));
        assert!(r.child("urn:a", "e").is_some());
    }

    #[test]
    fn broken_documents_are_refused() {
        assert!(parse(b"<a><b></a>").is_err());
        assert!(parse(b"<a>").is_err());
        assert!(parse(b"<x:a/>").is_err());
        assert!(parse(b"").is_err());
        assert!(parse(b"<a/><b/>").is_err());
        assert!(parse(b"<!DOCTYPE a [<!ENTITY e \"x\">]><a>&e;</a>").is_err());
    }
}
