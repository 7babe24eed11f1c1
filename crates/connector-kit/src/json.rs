//! Reading a JSON answer.

use domain::companies::profile::RegistryFailure;
use serde::de::DeserializeOwned;

/// Reads an answer's body (as [`exchange`](crate::exchange) read it, so bounded by its
/// limit) into `T`. A body that is not JSON, or not JSON of `T`'s shape, is
/// `Garbled("{what}: the answer does not parse")`: the parser's own message is dropped,
/// because it can quote the body (a value, a field name), and an answer can hold an
/// identifier.
pub fn read_json<T: DeserializeOwned>(what: &str, body: &[u8]) -> Result<T, RegistryFailure> {
    serde_json::from_slice(body)
        .map_err(|_| RegistryFailure::Garbled(format!("{what}: the answer does not parse")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, Debug)]
    struct Company {
        name: String,
    }

    #[test]
    fn a_wrong_shape_is_garbled_without_quoting_the_body() {
        let f = read_json::<Company>("src op", br#"{"name": 5560021361}"#).unwrap_err();
        assert_eq!(
            f,
            RegistryFailure::Garbled("src op: the answer does not parse".into())
        );
        let c: Company = read_json("src op", br#"{"name": "Test AB"}"#).unwrap();
        assert_eq!(c.name, "Test AB");
    }
}
