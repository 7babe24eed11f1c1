//! Diesel table definitions, kept by hand in step with `migrations/`. The storage conformance
//! tests exercise every table, so a drift shows up as a failing test.

diesel::table! {
    tenants (tenant_id) {
        tenant_id -> Text,
        name -> Text,
        own_country -> Text,
        provisioned_countries -> Array<Text>,
        status -> Text,
        data_key -> Bytea,
        daily_paid_calls -> Int8,
        monitoring_share -> Float8,
        person_lookup_ceiling -> Int8,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
        retention_days -> Int4,
        mode -> Text,
        test_tenant_id -> Nullable<Text>,
    }
}

diesel::table! {
    permits (tenant_id, permit_id) {
        tenant_id -> Text,
        permit_id -> Text,
        valid_from -> Date,
        valid_to -> Date,
        status -> Text,
        recorded_at -> Timestamptz,
    }
}

diesel::table! {
    grants (tenant_id, grant_id) {
        tenant_id -> Text,
        grant_id -> Text,
        client_id -> Text,
        scopes -> Array<Text>,
        countries -> Array<Text>,
        expires_at -> Nullable<Timestamptz>,
        revoked_at -> Nullable<Timestamptz>,
        secret_hash -> Text,
        credential_generation -> Int4,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
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

diesel::table! {
    call_records (tenant_id, call_ref) {
        tenant_id -> Text,
        call_ref -> Text,
        source -> Text,
        route -> Nullable<Text>,
        status -> Nullable<Int4>,
        upstream_ref -> Nullable<Text>,
        digest -> Nullable<Text>,
        schema_version -> Nullable<Text>,
        cost -> Int4,
        source_timestamp -> Timestamptz,
        retrieved_at -> Timestamptz,
        operation -> Nullable<Text>,
        usable -> Bool,
    }
}

diesel::table! {
    company_profiles (tenant_id, country, orgnr) {
        tenant_id -> Text,
        country -> Text,
        orgnr -> Text,
        subject_id -> Text,
        data -> Jsonb,
        main_call_ref -> Text,
        tax_call_ref -> Nullable<Text>,
        fetched_at -> Timestamptz,
    }
}

diesel::table! {
    company_documents (tenant_id, document_id) {
        tenant_id -> Text,
        document_id -> Text,
        subject_id -> Text,
        country -> Text,
        seen_at -> Timestamptz,
    }
}

diesel::table! {
    subjects (tenant_id, subject_id) {
        tenant_id -> Text,
        subject_id -> Text,
        kind -> Text,
        merged_into -> Nullable<Text>,
        call_ref -> Text,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    subject_identifiers (tenant_id, identifier_ref) {
        tenant_id -> Text,
        identifier_ref -> Text,
        subject_id -> Text,
        id_type -> Text,
        country -> Text,
        blind_index -> Bytea,
        sealed_value -> Bytea,
        valid_from -> Timestamptz,
        valid_to -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    customer_refs (tenant_id, ref_) {
        tenant_id -> Text,
        #[sql_name = "ref"]
        ref_ -> Text,
        subject_id -> Text,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    audit_log (tenant_id, audit_id) {
        tenant_id -> Text,
        audit_id -> Text,
        grant_id -> Text,
        request_id -> Text,
        occurred_at -> Timestamptz,
        surface -> Text,
        action -> Text,
        method -> Text,
        route -> Text,
        tool -> Nullable<Text>,
        status -> Int4,
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
        occurred_at -> Timestamptz,
        surface -> Text,
        method -> Text,
        route -> Text,
        tool -> Nullable<Text>,
        status -> Int4,
        outcome -> Text,
        error_code -> Nullable<Text>,
    }
}

diesel::table! {
    security_log (event_id) {
        event_id -> Text,
        request_id -> Text,
        occurred_at -> Timestamptz,
        method -> Text,
        route -> Text,
        status -> Int4,
        reason -> Text,
        client_id -> Nullable<Text>,
        peer -> Nullable<Text>,
    }
}

diesel::table! {
    paid_objects (tenant_id, kind, country, key) {
        tenant_id -> Text,
        kind -> Text,
        country -> Text,
        key -> Text,
        subject_id -> Text,
        data -> Jsonb,
        call_ref -> Text,
        fetched_at -> Timestamptz,
    }
}

diesel::table! {
    paid_call_budget (tenant_id, day) {
        tenant_id -> Text,
        day -> Date,
        used_on_demand -> Int8,
        used_scheduled -> Int8,
    }
}

diesel::table! {
    person_profiles (tenant_id, identifier_ref) {
        tenant_id -> Text,
        identifier_ref -> Text,
        subject_id -> Text,
        sealed_profile -> Bytea,
        call_ref -> Text,
        fetched_at -> Timestamptz,
    }
}

diesel::table! {
    person_lookups (tenant_id, day) {
        tenant_id -> Text,
        day -> Date,
        used -> Int8,
    }
}

diesel::table! {
    event_counters (tenant_id) {
        tenant_id -> Text,
        last_seq -> Int8,
    }
}

diesel::table! {
    events (tenant_id, seq) {
        tenant_id -> Text,
        seq -> Int8,
        event_id -> Text,
        idempotency_key -> Text,
        #[sql_name = "type"]
        type_ -> Text,
        country -> Text,
        subject_id -> Nullable<Text>,
        subject_ref -> Nullable<Text>,
        occurred_at -> Timestamptz,
        recorded_at -> Timestamptz,
        data -> Jsonb,
        evidence -> Jsonb,
        subscription_id -> Nullable<Text>,
    }
}

diesel::table! {
    subscriptions (tenant_id, subscription_id) {
        tenant_id -> Text,
        subscription_id -> Text,
        subject_id -> Text,
        kind -> Text,
        legal_basis -> Text,
        legal_basis_ref -> Nullable<Text>,
        status -> Text,
        check_days -> Int4,
        full_refresh_days -> Int4,
        country -> Text,
        created_at -> Timestamptz,
        suspended_at -> Nullable<Timestamptz>,
        suspension_reason -> Nullable<Text>,
        ended_at -> Nullable<Timestamptz>,
        purge_after -> Nullable<Timestamptz>,
        next_run_at -> Nullable<Timestamptz>,
        claimed_until -> Nullable<Timestamptz>,
        last_checked_at -> Nullable<Timestamptz>,
        last_full_refresh_at -> Nullable<Timestamptz>,
        purged_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    monitoring_baselines (tenant_id, subscription_id, part) {
        tenant_id -> Text,
        subscription_id -> Text,
        part -> Text,
        reading -> Jsonb,
        taken_at -> Timestamptz,
    }
}

diesel::table! {
    sanctions_source_versions (version_id) {
        version_id -> Text,
        source -> Text,
        digest -> Text,
        published_at -> Nullable<Timestamptz>,
        imported_at -> Timestamptz,
        entry_count -> Int4,
        skipped_count -> Int4,
    }
}

diesel::table! {
    sanctions_entries (version_id, ordinal) {
        version_id -> Text,
        ordinal -> Int4,
        source_entry_id -> Text,
        kind -> Text,
        entry -> Jsonb,
    }
}

diesel::table! {
    sanctions_active_lists (source) {
        source -> Text,
        version_id -> Text,
        activated_at -> Timestamptz,
    }
}

diesel::table! {
    sanctions_list_changes (change_id) {
        change_id -> Text,
        source -> Text,
        from_version_id -> Nullable<Text>,
        to_version_id -> Text,
        activated_at -> Timestamptz,
        claimed_until -> Nullable<Timestamptz>,
        after_tenant_id -> Nullable<Text>,
        after_subscription_id -> Nullable<Text>,
        done_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    sanctions_import_failures (source, attempted_at) {
        source -> Text,
        attempted_at -> Timestamptz,
        reason -> Text,
    }
}

diesel::table! {
    screening_policy_versions (policy_version_id) {
        policy_version_id -> Text,
        version -> Int4,
        review -> Float8,
        hit -> Float8,
        birth_date_exact -> Float8,
        birth_date_partial -> Float8,
        birth_date_mismatch -> Float8,
        nationality_match -> Float8,
        nationality_mismatch -> Float8,
        country_match -> Float8,
        weak_alias -> Float8,
        created_by -> Text,
        created_at -> Timestamptz,
        active -> Bool,
        peps_screened -> Bool,
        pep_after_office_months -> Int4,
    }
}

diesel::table! {
    screening_override_versions (tenant_id, override_version_id) {
        tenant_id -> Text,
        override_version_id -> Text,
        version -> Int4,
        review -> Nullable<Float8>,
        hit -> Nullable<Float8>,
        birth_date_exact -> Nullable<Float8>,
        birth_date_partial -> Nullable<Float8>,
        birth_date_mismatch -> Nullable<Float8>,
        nationality_match -> Nullable<Float8>,
        nationality_mismatch -> Nullable<Float8>,
        country_match -> Nullable<Float8>,
        weak_alias -> Nullable<Float8>,
        proposed_by -> Text,
        approved_by -> Nullable<Text>,
        status -> Text,
        effective_from -> Nullable<Timestamptz>,
        created_at -> Timestamptz,
        peps_screened -> Nullable<Bool>,
        pep_after_office_months -> Nullable<Int4>,
    }
}

diesel::table! {
    screening_whitelist_entries (tenant_id, whitelist_entry_id) {
        tenant_id -> Text,
        whitelist_entry_id -> Text,
        subject_id -> Nullable<Text>,
        input_hash -> Nullable<Text>,
        source -> Text,
        source_entry_id -> Text,
        reason -> Text,
        created_by -> Text,
        approved_by -> Nullable<Text>,
        created_at -> Timestamptz,
        expires_at -> Timestamptz,
        revoked_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    screening_checks (tenant_id, check_id) {
        tenant_id -> Text,
        check_id -> Text,
        grant_id -> Nullable<Text>,
        subject_id -> Nullable<Text>,
        visibility -> Nullable<Text>,
        input_kind -> Text,
        sealed_input -> Bytea,
        has_identifier -> Bool,
        person_fields_masked -> Bool,
        input_hash -> Nullable<Text>,
        input_verified -> Bool,
        band -> Text,
        policy_version_id -> Text,
        tenant_override_version_id -> Nullable<Text>,
        source_version_ids -> Array<Text>,
        degraded_sources -> Array<Text>,
        truncated_datasets -> Array<Text>,
        matcher_version -> Text,
        checked_at -> Timestamptz,
        candidates -> Jsonb,
    }
}

diesel::table! {
    webhook_endpoints (tenant_id, endpoint_id) {
        tenant_id -> Text,
        endpoint_id -> Text,
        grant_id -> Text,
        url -> Text,
        types -> Nullable<Jsonb>,
        description -> Nullable<Text>,
        sealed_secret -> Bytea,
        status -> Text,
        disabled_reason -> Nullable<Text>,
        disabled_at -> Nullable<Timestamptz>,
        cursor_seq -> Int8,
        failures -> Int4,
        failing_since -> Nullable<Timestamptz>,
        next_attempt_at -> Timestamptz,
        claimed_until -> Nullable<Timestamptz>,
        attempts -> Int8,
        created_at -> Timestamptz,
        secret_rotated_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    webhook_deliveries (tenant_id, endpoint_id, number) {
        tenant_id -> Text,
        endpoint_id -> Text,
        number -> Int8,
        event_id -> Text,
        seq -> Int8,
        #[sql_name = "type"]
        type_name -> Text,
        attempt -> Int4,
        attempted_at -> Timestamptz,
        outcome -> Text,
        status_code -> Nullable<Int4>,
        error -> Nullable<Text>,
        duration_ms -> Int8,
        next_attempt_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    portal_users (tenant_id, user_id) {
        tenant_id -> Text,
        user_id -> Text,
        email -> Text,
        role -> Text,
        created_at -> Timestamptz,
        created_by -> Nullable<Text>,
        disabled_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    portal_links (tenant_id, link_digest) {
        tenant_id -> Text,
        link_digest -> Bytea,
        user_id -> Text,
        binding_digest -> Bytea,
        created_at -> Timestamptz,
        expires_at -> Timestamptz,
        used_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    portal_sessions (tenant_id, session_digest) {
        tenant_id -> Text,
        session_digest -> Bytea,
        user_id -> Text,
        created_at -> Timestamptz,
        last_seen_at -> Timestamptz,
        expires_at -> Timestamptz,
        ended_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    assistant_conversations (tenant_id, conversation_id) {
        tenant_id -> Text,
        conversation_id -> Text,
        portal_user_id -> Text,
        grant_id -> Text,
        title -> Bytea,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
    }
}

diesel::table! {
    assistant_turns (tenant_id, conversation_id, seq) {
        tenant_id -> Text,
        conversation_id -> Text,
        seq -> Int4,
        written_at -> Timestamptz,
        sealed -> Bytea,
    }
}

diesel::table! {
    assistant_model_calls (tenant_id, day) {
        tenant_id -> Text,
        day -> Date,
        calls -> Int4,
    }
}

diesel::joinable!(permits -> tenants (tenant_id));
diesel::joinable!(grants -> tenants (tenant_id));
diesel::allow_tables_to_appear_in_same_query!(
    tenants,
    permits,
    grants,
    client_credentials,
    call_records,
    company_profiles,
    company_documents,
    subjects,
    subject_identifiers,
    customer_refs,
    audit_log,
    access_log,
    security_log,
    paid_objects,
    paid_call_budget,
    person_profiles,
    person_lookups,
    event_counters,
    events,
    subscriptions,
    monitoring_baselines,
    sanctions_source_versions,
    sanctions_entries,
    sanctions_active_lists,
    sanctions_import_failures,
    sanctions_list_changes,
    screening_policy_versions,
    screening_override_versions,
    screening_whitelist_entries,
    screening_checks,
    webhook_endpoints,
    webhook_deliveries,
    portal_users,
    portal_links,
    portal_sessions,
    assistant_conversations,
    assistant_turns,
    assistant_model_calls,
);
