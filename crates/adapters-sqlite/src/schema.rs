//! The tables the ports read and write, as diesel sees them (the SQL is
//! `migrations/2026-11-25-000001_schema/up.sql`).

diesel::table! {
    tenants (tenant_id) {
        tenant_id -> Text,
        name -> Text,
        own_country -> Text,
        provisioned_countries -> Text,
        status -> Text,
        data_key -> Binary,
        daily_paid_calls -> BigInt,
        monitoring_share -> Double,
        person_lookup_ceiling -> BigInt,
        retention_days -> Integer,
        created_at -> BigInt,
        updated_at -> BigInt,
    }
}

diesel::table! {
    permits (tenant_id, permit_id) {
        tenant_id -> Text,
        permit_id -> Text,
        valid_from -> Text,
        valid_to -> Text,
        status -> Text,
        recorded_at -> BigInt,
    }
}

diesel::table! {
    grants (tenant_id, grant_id) {
        tenant_id -> Text,
        grant_id -> Text,
        client_id -> Text,
        scopes -> Text,
        countries -> Text,
        expires_at -> Nullable<BigInt>,
        revoked_at -> Nullable<BigInt>,
        secret_hash -> Text,
        credential_generation -> Integer,
        created_at -> BigInt,
        updated_at -> BigInt,
    }
}

diesel::table! {
    client_credentials (client_id) {
        client_id -> Text,
        tenant_id -> Text,
        grant_id -> Text,
    }
}

diesel::allow_tables_to_appear_in_same_query!(client_credentials, grants, permits, tenants);
