-- Company data: what each upstream call was (operation, usability), the per-tenant profile
-- cache, and the annual-report document ids a tenant was handed.

ALTER TABLE call_records
    ADD COLUMN operation text,
    ADD COLUMN usable boolean NOT NULL DEFAULT true;

-- One tenant's cached company profiles. Keyed by the legal-entity number (never a personal
-- number: the company routes take legal-entity numbers only). No cross-tenant store exists.
CREATE TABLE company_profiles (
    tenant_id     text        NOT NULL REFERENCES tenants (tenant_id),
    country       text        NOT NULL,
    orgnr         text        NOT NULL,
    subject_id    text        NOT NULL,
    -- The canonical register data (without evidence), as JSON.
    data          jsonb       NOT NULL,
    main_call_ref text        NOT NULL,
    tax_call_ref  text        NOT NULL,
    fetched_at    timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, country, orgnr),
    FOREIGN KEY (tenant_id, subject_id) REFERENCES subjects (tenant_id, subject_id),
    FOREIGN KEY (tenant_id, main_call_ref) REFERENCES call_records (tenant_id, call_ref),
    FOREIGN KEY (tenant_id, tax_call_ref) REFERENCES call_records (tenant_id, call_ref)
);

-- Document ids a tenant was handed in a profile, and whose they are.
CREATE TABLE company_documents (
    tenant_id   text        NOT NULL REFERENCES tenants (tenant_id),
    document_id text        NOT NULL,
    subject_id  text        NOT NULL,
    country     text        NOT NULL,
    seen_at     timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, document_id),
    FOREIGN KEY (tenant_id, subject_id) REFERENCES subjects (tenant_id, subject_id)
);
