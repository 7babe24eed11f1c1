-- Who revokes and narrows a grant (the specification's grant lifecycle): the operator for a
-- grant provisioned on paper terms, the tenant for one it made in the portal. Every grant
-- made before the portal was the operator's.
ALTER TABLE grants ADD COLUMN owner text NOT NULL DEFAULT 'operator'
    CHECK (owner IN ('operator', 'tenant'));
