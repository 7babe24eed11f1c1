//! Rebuilds this crate when `migrations/` changes: `embed_migrations!` compiles the SQL in,
//! and cargo does not see a new migration folder by itself.
fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
