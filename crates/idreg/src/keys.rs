//! `idreg keys`: the operator's key commands. A deployment's keys come from its secret store
//! (`IDREG_SIGNING_KEY`, `IDREG_MASTER_KEY`, or their `_FILE` forms); the store records their
//! fingerprints on first use, and every process compares its own with that record.

use crate::app::configured_keys;
use crate::cli::KeysCommand;
use crate::config::Config;
use crate::store::Store;
use adapters_crypto::KeyMaterial;
use domain::health::keys::KeyFingerprints;
use domain::{ErrorCode, Failure};
use serde_json::{json, Value};

fn fingerprints_json(fp: &KeyFingerprints) -> Value {
    json!({ "signing": fp.signing, "master": fp.master })
}

fn refused(message: impl Into<String>) -> Failure {
    Failure::new(ErrorCode::BadRequest, message)
}

fn internal(e: impl std::fmt::Display) -> Failure {
    Failure::new(ErrorCode::InternalError, format!("{e:#}"))
}

/// Runs one `idreg keys` command; its one JSON object, or the failure.
pub async fn execute(config: &Config, command: KeysCommand) -> Result<Value, Failure> {
    if let KeysCommand::Generate = command {
        let keys = KeyMaterial::generate();
        return Ok(json!({
            "signing_key": keys.signing_key().to_hex().as_str(),
            "master_key": keys.master_key().to_hex().as_str(),
            "fingerprints": fingerprints_json(&keys.fingerprints()),
        }));
    }
    let (store, _) = Store::open(&config.store_url(), 1)
        .await
        .map_err(internal)?;
    let probe = store.ports().probe;
    let held = probe.key_fingerprints().await.map_err(internal)?;
    let keys = configured_keys(config, &store).map_err(|e| refused(format!("{e:#}")))?;
    match command {
        KeysCommand::Generate => unreachable!("answered above"),
        KeysCommand::Show => {
            let mine = keys.as_ref().map(KeyMaterial::fingerprints);
            let verdict = match (&held, &mine) {
                (Some(held), Some(mine)) => match domain::health::keys::compare(held, mine) {
                    Ok(()) => json!({ "match": true }),
                    Err(m) => {
                        json!({ "match": false, "setting": m.setting(), "message": m.to_string() })
                    }
                },
                _ => json!({ "match": Value::Null }),
            };
            let mut out = json!({
                "configured": mine.as_ref().map(fingerprints_json),
                "store": held.as_ref().map(fingerprints_json),
            });
            if let (Value::Object(out), Value::Object(verdict)) = (&mut out, verdict) {
                out.extend(verdict);
            }
            Ok(out)
        }
        KeysCommand::AdoptSigningKey => {
            let keys = keys.ok_or_else(|| {
                refused("no keys are configured: set IDREG_SIGNING_KEY and IDREG_MASTER_KEY")
            })?;
            let mine = keys.fingerprints();
            let Some(before) = held else {
                let adopted = probe
                    .adopt_key_fingerprints(&mine)
                    .await
                    .map_err(internal)?;
                return Ok(
                    json!({ "adopted": fingerprints_json(&adopted), "previous_signing": Value::Null }),
                );
            };
            if before.master != mine.master {
                return Err(refused(
                    domain::health::keys::compare(&before, &mine)
                        .err()
                        .map(|m| m.to_string())
                        .unwrap_or_default(),
                ));
            }
            if !probe
                .replace_signing_fingerprint(&mine)
                .await
                .map_err(internal)?
            {
                return Err(refused(
                    "the store's key record changed while it was replaced; run the command again",
                ));
            }
            Ok(json!({ "adopted": fingerprints_json(&mine), "previous_signing": before.signing }))
        }
    }
}
