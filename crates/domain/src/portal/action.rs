//! What a portal user can do, as the tenant's audit log names it: an action name, and the
//! portal page's method and route template (never the ids or values a request carried).

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum PortalAction {
    SignInRequested,
    SignedIn,
    SignedOut,
    GrantCreated,
    GrantUpdated,
    GrantRotated,
    GrantRevoked,
    AuditRead,
    ChecksListed,
    CheckRead,
    WhitelistProposed,
    WhitelistApproved,
    WhitelistRevoked,
    UserAdded,
    UserDisabled,
    ConnectionReviewed,
    ConnectionConsented,
    ConnectionRefused,
    ConnectionRevoked,
}

impl PortalAction {
    pub const ALL: [PortalAction; 19] = [
        PortalAction::SignInRequested,
        PortalAction::SignedIn,
        PortalAction::SignedOut,
        PortalAction::GrantCreated,
        PortalAction::GrantUpdated,
        PortalAction::GrantRotated,
        PortalAction::GrantRevoked,
        PortalAction::AuditRead,
        PortalAction::ChecksListed,
        PortalAction::CheckRead,
        PortalAction::WhitelistProposed,
        PortalAction::WhitelistApproved,
        PortalAction::WhitelistRevoked,
        PortalAction::UserAdded,
        PortalAction::UserDisabled,
        PortalAction::ConnectionReviewed,
        PortalAction::ConnectionConsented,
        PortalAction::ConnectionRefused,
        PortalAction::ConnectionRevoked,
    ];

    /// `(action, method, route)`.
    fn parts(self) -> (&'static str, &'static str, &'static str) {
        use PortalAction::*;
        match self {
            SignInRequested => ("portal.sign_in.request", "POST", "/sign-in"),
            SignedIn => ("portal.sign_in.complete", "POST", "/sign-in/complete"),
            SignedOut => ("portal.sign_out", "POST", "/sign-out"),
            GrantCreated => ("portal.grant.create", "POST", "/grants"),
            GrantUpdated => ("portal.grant.update", "POST", "/grants/{id}"),
            GrantRotated => ("portal.grant.rotate", "POST", "/grants/{id}/rotate"),
            GrantRevoked => ("portal.grant.revoke", "POST", "/grants/{id}/revoke"),
            AuditRead => ("portal.audit.read", "GET", "/audit"),
            ChecksListed => ("portal.screening.list", "GET", "/screening"),
            CheckRead => ("portal.screening.read", "GET", "/screening/{id}"),
            WhitelistProposed => ("portal.whitelist.propose", "POST", "/whitelist"),
            WhitelistApproved => (
                "portal.whitelist.approve",
                "POST",
                "/whitelist/{id}/approve",
            ),
            WhitelistRevoked => ("portal.whitelist.revoke", "POST", "/whitelist/{id}/revoke"),
            UserAdded => ("portal.user.add", "POST", "/users"),
            UserDisabled => ("portal.user.disable", "POST", "/users/{id}/disable"),
            ConnectionReviewed => ("portal.connection.review", "GET", "/connect/{id}"),
            ConnectionConsented => ("portal.connection.consent", "POST", "/connect/{id}"),
            ConnectionRefused => ("portal.connection.refuse", "POST", "/connect/{id}/refuse"),
            ConnectionRevoked => (
                "portal.connection.revoke",
                "POST",
                "/connections/{id}/revoke",
            ),
        }
    }

    pub fn action(self) -> &'static str {
        self.parts().0
    }

    pub fn method(self) -> &'static str {
        self.parts().1
    }

    pub fn route(self) -> &'static str {
        self.parts().2
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn every_action_has_its_own_name_and_route() {
        let names: HashSet<_> = PortalAction::ALL.iter().map(|a| a.action()).collect();
        let routes: HashSet<_> = PortalAction::ALL
            .iter()
            .map(|a| (a.method(), a.route()))
            .collect();
        assert_eq!(names.len(), PortalAction::ALL.len());
        assert_eq!(routes.len(), PortalAction::ALL.len());
        assert!(PortalAction::ALL
            .iter()
            .all(|a| a.action().starts_with("portal.") && a.route().starts_with('/')));
    }
}
