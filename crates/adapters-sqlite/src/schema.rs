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
        mode -> Text,
        test_tenant_id -> Nullable<Text>,
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
        owner -> Text,
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

diesel::table! {
    audit_log (tenant_id, audit_id) {
        tenant_id -> Text,
        audit_id -> Text,
        grant_id -> Text,
        request_id -> Text,
        occurred_at -> BigInt,
        surface -> Text,
        action -> Text,
        method -> Text,
        route -> Text,
        tool -> Nullable<Text>,
        status -> Integer,
        outcome -> Text,
        error_code -> Nullable<Text>,
        detail -> Nullable<Text>,
        portal_user_id -> Nullable<Text>,
        oauth_client -> Nullable<Text>,
        conversation_id -> Nullable<Text>,
    }
}

diesel::table! {
    access_log (tenant_id, grant_id, access_id) {
        tenant_id -> Text,
        grant_id -> Text,
        access_id -> Text,
        request_id -> Text,
        occurred_at -> BigInt,
        surface -> Text,
        method -> Text,
        route -> Text,
        tool -> Nullable<Text>,
        status -> Integer,
        outcome -> Text,
        error_code -> Nullable<Text>,
    }
}

diesel::table! {
    security_log (event_id) {
        event_id -> Text,
        request_id -> Text,
        occurred_at -> BigInt,
        method -> Text,
        route -> Text,
        status -> Integer,
        reason -> Text,
        client_id -> Nullable<Text>,
        peer -> Nullable<Text>,
    }
}

diesel::table! {
    call_records (tenant_id, call_ref) {
        tenant_id -> Text,
        call_ref -> Text,
        source -> Text,
        route -> Nullable<Text>,
        status -> Nullable<Integer>,
        upstream_ref -> Nullable<Text>,
        digest -> Nullable<Text>,
        schema_version -> Nullable<Text>,
        cost -> Integer,
        source_timestamp -> BigInt,
        retrieved_at -> BigInt,
        operation -> Nullable<Text>,
        usable -> Integer,
    }
}

diesel::table! {
    subjects (tenant_id, subject_id) {
        tenant_id -> Text,
        subject_id -> Text,
        kind -> Text,
        merged_into -> Nullable<Text>,
        call_ref -> Text,
        created_at -> BigInt,
    }
}

diesel::table! {
    subject_identifiers (tenant_id, identifier_ref) {
        tenant_id -> Text,
        identifier_ref -> Text,
        subject_id -> Text,
        id_type -> Text,
        country -> Text,
        blind_index -> Binary,
        sealed_value -> Binary,
        valid_from -> BigInt,
        valid_to -> Nullable<BigInt>,
    }
}

diesel::table! {
    customer_refs (tenant_id, ref_) {
        tenant_id -> Text,
        #[sql_name = "ref"]
        ref_ -> Text,
        subject_id -> Text,
        created_at -> BigInt,
    }
}

diesel::table! {
    event_counters (tenant_id) {
        tenant_id -> Text,
        last_seq -> BigInt,
    }
}

diesel::table! {
    events (tenant_id, seq) {
        tenant_id -> Text,
        seq -> BigInt,
        event_id -> Text,
        idempotency_key -> Text,
        #[sql_name = "type"]
        type_ -> Text,
        country -> Text,
        subject_id -> Nullable<Text>,
        subject_ref -> Nullable<Text>,
        occurred_at -> BigInt,
        recorded_at -> BigInt,
        data -> Text,
        evidence -> Text,
        subscription_id -> Nullable<Text>,
    }
}

diesel::allow_tables_to_appear_in_same_query!(
    subjects,
    subject_identifiers,
    customer_refs,
    call_records
);

diesel::table! {
    assistant_conversations (tenant_id, conversation_id) {
        tenant_id -> Text,
        conversation_id -> Text,
        portal_user_id -> Text,
        grant_id -> Text,
        title -> Binary,
        created_at -> BigInt,
        updated_at -> BigInt,
    }
}

diesel::table! {
    assistant_turns (tenant_id, conversation_id, seq) {
        tenant_id -> Text,
        conversation_id -> Text,
        seq -> BigInt,
        written_at -> BigInt,
        sealed -> Binary,
    }
}

diesel::table! {
    assistant_model_calls (tenant_id, day) {
        tenant_id -> Text,
        day -> Text,
        calls -> BigInt,
    }
}
