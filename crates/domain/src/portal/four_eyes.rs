//! The portal's four eyes: who may approve what another portal user proposed.
//!
//! A portal admin can add users, so comparing user ids alone lets one person satisfy four
//! eyes with a second account they made themselves (`me+2@...`), or a chain of them. The rule
//! follows who vouched for each account instead. Every portal user descends, through the
//! users who added them (`created_by`), from one the operator made: that user's **line**. An
//! operator-made user is the root of their own line; the operator vouches for that person on
//! paper. A proposal is approved only by a user of **another line** than its proposer's.
//!
//! So whatever accounts one person makes, all of them are of that person's line and none can
//! approve that person's proposals: one person with one admin account cannot satisfy four
//! eyes alone. Two people need two lines: two operator-made users, or users added by two
//! of them. A proposal made outside the portal (by an operator at the command line) has no
//! line, and any portal user may approve it; the proposer never approves their own.

use crate::ids::PortalUserId;
use crate::portal::user::PortalUser;
use std::collections::HashMap;

/// Why an approval is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FourEyesRefusal {
    /// The approver proposed it.
    OwnProposal,
    /// The approver and the proposer descend from the same operator-made user.
    SameLine,
}

impl FourEyesRefusal {
    /// For the audit row's detail.
    pub fn as_str(&self) -> &'static str {
        match self {
            FourEyesRefusal::OwnProposal => "four_eyes_own_proposal",
            FourEyesRefusal::SameLine => "four_eyes_same_line",
        }
    }

    pub fn message(&self) -> &'static str {
        match self {
            FourEyesRefusal::OwnProposal => {
                "four eyes: the approver must not be the proposer of the whitelist entry"
            }
            FourEyesRefusal::SameLine => {
                "four eyes: the approver and the proposer are of one line (each added, directly or \
                 through others, by the same operator-made user), so one person could be both; the \
                 approval needs a user of another line: one the operator made, or one such a user added"
            }
        }
    }
}

/// The operator-made user a portal user descends from (themselves, when the operator made
/// them). A chain that leaves the tenant's users (an adder not among them) or loops ends at
/// its last user.
pub fn line_of(users: &HashMap<PortalUserId, &PortalUser>, id: PortalUserId) -> PortalUserId {
    let mut at = id;
    for _ in 0..=users.len() {
        match users.get(&at).and_then(|u| u.created_by) {
            Some(adder) if users.contains_key(&adder) => at = adder,
            _ => return at,
        }
    }
    at
}

/// Whether `approver` may approve a proposal made by `proposer` (a portal user's id as the
/// entry records it, or an operator's name), given the tenant's portal users.
pub fn may_approve(
    users: &[PortalUser],
    proposer: &str,
    approver: PortalUserId,
) -> Result<(), FourEyesRefusal> {
    if proposer == approver.to_string() {
        return Err(FourEyesRefusal::OwnProposal);
    }
    let Ok(proposer) = proposer.parse::<PortalUserId>() else {
        // An operator's proposal: no line of the portal's.
        return Ok(());
    };
    let by_id: HashMap<PortalUserId, &PortalUser> = users.iter().map(|u| (u.id, u)).collect();
    if line_of(&by_id, proposer) == line_of(&by_id, approver) {
        return Err(FourEyesRefusal::SameLine);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::TenantId;
    use crate::portal::user::{Email, PortalRole};
    use proptest::prelude::*;

    fn user(created_by: Option<PortalUserId>) -> PortalUser {
        PortalUser {
            id: PortalUserId::generate(),
            tenant_id: TenantId::generate(),
            email: Email::parse("someone@example.se").unwrap(),
            role: PortalRole::Admin,
            created_at: chrono::Utc::now(),
            created_by,
            disabled_at: None,
        }
    }

    #[test]
    fn a_second_account_of_ones_own_making_cannot_approve() {
        let lead = user(None);
        let me2 = user(Some(lead.id));
        let me3 = user(Some(me2.id));
        let colleague = user(None);
        let added_by_colleague = user(Some(colleague.id));
        let users = vec![
            lead.clone(),
            me2.clone(),
            me3.clone(),
            colleague.clone(),
            added_by_colleague.clone(),
        ];
        let proposed =
            |p: &PortalUser, a: &PortalUser| may_approve(&users, &p.id.to_string(), a.id);
        assert_eq!(proposed(&lead, &lead), Err(FourEyesRefusal::OwnProposal));
        for (p, a) in [
            (&lead, &me2),
            (&me2, &lead),
            (&lead, &me3),
            (&me2, &me3),
            (&me3, &me2),
        ] {
            assert_eq!(proposed(p, a), Err(FourEyesRefusal::SameLine));
        }
        for (p, a) in [
            (&lead, &colleague),
            (&colleague, &lead),
            (&me3, &added_by_colleague),
            (&added_by_colleague, &me2),
        ] {
            assert_eq!(proposed(p, a), Ok(()));
        }
        // An operator's proposal: any portal user approves it.
        assert_eq!(may_approve(&users, "ops-anna", me3.id), Ok(()));
    }

    proptest! {
        /// However many accounts one line makes, and in whatever shape, none of them approves
        /// a proposal of another of them; across two lines every approval is allowed.
        #[test]
        fn one_line_never_satisfies_four_eyes_alone(
            shape in proptest::collection::vec(any::<prop::sample::Index>(), 1..12),
            other_shape in proptest::collection::vec(any::<prop::sample::Index>(), 0..6),
            pick in any::<(prop::sample::Index, prop::sample::Index)>(),
        ) {
            let grow = |root: PortalUser, shape: &[prop::sample::Index]| {
                let mut line = vec![root];
                for at in shape {
                    let adder = line[at.index(line.len())].id;
                    line.push(user(Some(adder)));
                }
                line
            };
            let mine = grow(user(None), &shape);
            let theirs = grow(user(None), &other_shape);
            let users: Vec<PortalUser> = mine.iter().chain(theirs.iter()).cloned().collect();
            let (p, a) = (&mine[pick.0.index(mine.len())], &mine[pick.1.index(mine.len())]);
            prop_assert!(may_approve(&users, &p.id.to_string(), a.id).is_err());
            let other = &theirs[pick.1.index(theirs.len())];
            prop_assert_eq!(may_approve(&users, &p.id.to_string(), other.id), Ok(()));
            prop_assert_eq!(may_approve(&users, &other.id.to_string(), a.id), Ok(()));
        }
    }
}
