//! The answer of a SOAP 1.1 service, of any status: where its payload or its Fault is, or why
//! it has neither. The Swedish tax agency's services (`SSBTGU`) and the population register
//! (`SPAR`) answer this way; each connector reads what is inside.

use crate::call::AnswerMeta;
use crate::transport::{status_failure, Answer};
use crate::xml::{self, soap_body, soap_fault, Element, NS_SOAP};
use domain::companies::profile::RegistryFailure;

/// What a SOAP 1.1 envelope's `Body` holds.
#[derive(Debug, Clone, Copy)]
pub enum SoapAnswer<'a> {
    /// The `Body`, holding the service's answer.
    Body(&'a Element),
    /// The `Body`'s `Fault`: the service refused or failed.
    Fault(&'a Element),
}

/// Reads an answer of any status as SOAP 1.1 and hands `read` its body or its fault: a
/// well-formed envelope with 200, or one carrying a `Fault` with 500 (SOAP 1.1 sends faults
/// with 500). Anything else is not handed on: a 200 that is not a SOAP 1.1 envelope is
/// `Garbled`, any other status is what [`status_failure`] makes of it. Reasons start with
/// `operation` (the operation's label).
pub fn read_soap_answer<T>(
    answer: &Answer,
    operation: &str,
    read: impl FnOnce(SoapAnswer<'_>) -> (Result<T, RegistryFailure>, AnswerMeta),
) -> (Result<T, RegistryFailure>, AnswerMeta) {
    let garbled = |why: &str| {
        (
            Err(RegistryFailure::Garbled(format!("{operation}: {why}"))),
            AnswerMeta::default(),
        )
    };
    let root = match (answer.status, xml::parse(&answer.body)) {
        (200, Ok(root)) => root,
        (200, Err(_)) => return garbled("the answer is not well-formed XML"),
        (500, Ok(root)) if soap_fault(&root).is_some() => root,
        (status, _) => {
            return (
                Err(status_failure(operation, status)),
                AnswerMeta::default(),
            )
        }
    };
    let Some(body) = soap_body(&root) else {
        return garbled("the answer is not a SOAP 1.1 envelope");
    };
    match body.child(NS_SOAP, "Fault") {
        Some(fault) => read(SoapAnswer::Fault(fault)),
        None => read(SoapAnswer::Body(body)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(status: u16, body: &str) -> Answer {
        Answer {
            status,
            headers: Default::default(),
            body: body.as_bytes().to_vec(),
        }
    }

    const ENVELOPE: &str = r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><Svar>ja</Svar></s:Body></s:Envelope>"#;
    const FAULT: &str = r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><s:Fault><faultcode>s:Server</faultcode></s:Fault></s:Body></s:Envelope>"#;

    /// What `read` was handed: `body` with the body's first child's name, `fault` with the
    /// fault code; or the failure.
    fn seen(status: u16, text: &str) -> Result<String, RegistryFailure> {
        read_soap_answer(&answer(status, text), "op", |soap| {
            let seen = match soap {
                SoapAnswer::Body(body) => format!(
                    "body {}",
                    body.child_local("Svar")
                        .and_then(Element::text_trimmed)
                        .unwrap_or("-")
                ),
                SoapAnswer::Fault(fault) => format!(
                    "fault {}",
                    fault
                        .child_local("faultcode")
                        .and_then(Element::text_trimmed)
                        .unwrap_or("-")
                ),
            };
            (Ok(seen), AnswerMeta::default())
        })
        .0
    }

    #[test]
    fn an_envelope_with_200_hands_on_its_body_and_a_fault_with_500_its_fault() {
        assert_eq!(seen(200, ENVELOPE).unwrap(), "body ja");
        assert_eq!(seen(500, FAULT).unwrap(), "fault s:Server");
        // A fault is a fault with 200 too.
        assert_eq!(seen(200, FAULT).unwrap(), "fault s:Server");
    }

    #[test]
    fn anything_else_is_refused_before_it_is_read() {
        let garbled = |r: Result<String, RegistryFailure>| match r {
            Err(RegistryFailure::Garbled(why)) => why,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            garbled(seen(200, "not xml <")),
            "op: the answer is not well-formed XML"
        );
        assert_eq!(
            garbled(seen(200, "<Svar>ja</Svar>")),
            "op: the answer is not a SOAP 1.1 envelope"
        );
        // A 500 without a fault is the status's failure, as any other status.
        assert!(matches!(
            seen(500, ENVELOPE),
            Err(RegistryFailure::Unavailable(_))
        ));
        assert!(matches!(
            seen(500, "oops"),
            Err(RegistryFailure::Unavailable(_))
        ));
        assert!(matches!(
            seen(404, ENVELOPE),
            Err(RegistryFailure::Garbled(_))
        ));
    }
}
