//! The throwaway certificate authority of one running sandbox, for the sources that demand
//! mutual TLS (Bolagsverket's beneficial-owners API).
//!
//! At start the sandbox makes a CA, a server certificate for `127.0.0.1`/`localhost` and a
//! client certificate, all signed by that CA (rcgen's default validity; the key never leaves the machine and
//! is made afresh on every start). The TLS listener
//! requires a client certificate issued by the CA. The PEM files are written to a fresh
//! directory so a connector is configured exactly as in production: a client identity file
//! and an extra root to trust.

use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose, SanType,
};
use std::io;
use std::net::{IpAddr, Ipv4Addr};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The password of the sandbox's PKCS#12 client keystore (a throwaway, like the key in it).
pub const CLIENT_PKCS12_PASSWORD: &str = "sandbox-keystore";

/// Where the sandbox wrote its TLS material, and the PEM texts themselves.
#[derive(Clone, Debug)]
pub struct SandboxTls {
    /// The directory holding the files (removed when the sandbox stops).
    pub dir: PathBuf,
    /// The CA certificate (PEM): trust it to reach the TLS listener.
    pub ca_pem_path: PathBuf,
    /// A client certificate and its private key (PEM, PKCS#8) the listener accepts.
    pub client_identity_pem_path: PathBuf,
    /// The same client certificate and key as a PKCS#12 keystore under
    /// [`CLIENT_PKCS12_PASSWORD`], the form SPAR issues organisation certificates in.
    pub client_identity_pkcs12_path: PathBuf,
    pub ca_pem: String,
    pub client_identity_pem: String,
    pub(crate) server_cert_pem: String,
    pub(crate) server_key_pem: String,
}

fn failed(e: impl std::fmt::Display) -> io::Error {
    io::Error::other(format!("sandbox TLS material: {e}"))
}

impl SandboxTls {
    /// Makes a CA, a server and a client certificate, and writes the CA and the client
    /// identity to a fresh directory under the system's temporary directory.
    pub fn generate() -> io::Result<SandboxTls> {
        let ca_key = KeyPair::generate().map_err(failed)?;
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).map_err(failed)?;
        ca_params
            .distinguished_name
            .push(DnType::CommonName, "idreg upstream sandbox throwaway CA");
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let ca_cert = ca_params.self_signed(&ca_key).map_err(failed)?;
        let issuer = Issuer::new(ca_params, ca_key);

        let server_key = KeyPair::generate().map_err(failed)?;
        let mut server_params =
            CertificateParams::new(vec!["localhost".to_owned()]).map_err(failed)?;
        server_params
            .subject_alt_names
            .push(SanType::IpAddress(IpAddr::V4(Ipv4Addr::LOCALHOST)));
        server_params
            .distinguished_name
            .push(DnType::CommonName, "upstream sandbox");
        server_params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        let server_cert = server_params
            .signed_by(&server_key, &issuer)
            .map_err(failed)?;

        let client_key = KeyPair::generate().map_err(failed)?;
        let mut client_params = CertificateParams::new(Vec::<String>::new()).map_err(failed)?;
        client_params
            .distinguished_name
            .push(DnType::CommonName, "idreg sandbox client");
        client_params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
        let client_cert = client_params
            .signed_by(&client_key, &issuer)
            .map_err(failed)?;

        let dir = std::env::temp_dir().join(format!(
            "idreg-sandbox-tls-{}-{}",
            std::process::id(),
            ulid_like()
        ));
        std::fs::create_dir_all(&dir)?;
        let ca_pem = ca_cert.pem();
        let client_identity_pem = format!("{}{}", client_cert.pem(), client_key.serialize_pem());
        let ca_pem_path = dir.join("sandbox-ca.pem");
        let client_identity_pem_path = dir.join("sandbox-client.pem");
        write_private(&ca_pem_path, &ca_pem)?;
        write_private(&client_identity_pem_path, &client_identity_pem)?;
        let client_identity_pkcs12_path = dir.join("sandbox-client.p12");
        let chain = p12_keystore::PrivateKeyChain::new(
            b"idreg-sandbox-client".to_vec(),
            p12_keystore::PrivateKey::from_der(&client_key.serialize_der()).map_err(failed)?,
            [p12_keystore::Certificate::from_der(client_cert.der()).map_err(failed)?],
        );
        let mut store = p12_keystore::KeyStore::new();
        store.add_entry(
            "client",
            p12_keystore::KeyStoreEntry::PrivateKeyChain(chain),
        );
        let p12 = store
            .writer(CLIENT_PKCS12_PASSWORD)
            .write()
            .map_err(failed)?;
        write_private_bytes(&client_identity_pkcs12_path, &p12)?;
        Ok(SandboxTls {
            dir,
            ca_pem_path,
            client_identity_pem_path,
            client_identity_pkcs12_path,
            ca_pem,
            client_identity_pem,
            server_cert_pem: server_cert.pem(),
            server_key_pem: server_key.serialize_pem(),
        })
    }

    /// The listener's configuration: the server certificate, and a client certificate
    /// issued by the CA required on every connection.
    pub(crate) fn server_config(&self) -> io::Result<rustls::ServerConfig> {
        use rustls::pki_types::pem::PemObject;
        use rustls::pki_types::{CertificateDer, PrivateKeyDer};
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let mut roots = rustls::RootCertStore::empty();
        for cert in CertificateDer::pem_slice_iter(self.ca_pem.as_bytes()) {
            roots.add(cert.map_err(failed)?).map_err(failed)?;
        }
        let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(
            roots.into(),
            provider.clone(),
        )
        .build()
        .map_err(failed)?;
        let chain = CertificateDer::pem_slice_iter(self.server_cert_pem.as_bytes())
            .collect::<Result<Vec<_>, _>>()
            .map_err(failed)?;
        let key = PrivateKeyDer::from_pem_slice(self.server_key_pem.as_bytes()).map_err(failed)?;
        rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(failed)?
            .with_client_cert_verifier(verifier)
            .with_single_cert(chain, key)
            .map_err(failed)
    }

    /// Removes the written files.
    pub fn remove_files(&self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A unique-enough directory suffix (time and a counter; no randomness needed).
fn ulid_like() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("{nanos:x}-{}", N.fetch_add(1, Ordering::Relaxed))
}

/// Writes a file readable by its owner only (it holds a private key).
fn write_private(path: &Path, text: &str) -> io::Result<()> {
    write_private_bytes(path, text.as_bytes())
}

fn write_private_bytes(path: &Path, bytes: &[u8]) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(path)?;
        f.write_all(bytes)
    }
    #[cfg(not(unix))]
    {
        std::fs::write(path, bytes)
    }
}
