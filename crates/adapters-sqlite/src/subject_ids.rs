//! The SQL that finds a subject's ids: the aliases merged into it, and "any id of the
//! subject" for `IN`. Both are read on the request path (every cached company read asks for
//! its subject's aliases), so each is an index seek, never a walk over the tenant's subjects;
//! the unit test below holds their plans. A leaf: the modules of rows naming a subject
//! (subjects, subscriptions, checks, events) read it, it reads none of them.

use crate::schema::subjects;
use diesel::prelude::*;
use diesel::sql_types::Text;

/// The ids merged into `subject_id`, in order: sought by `subjects_by_merged_into`, which
/// holds them in that order (every company read asks it).
pub(crate) fn aliases_query<'a>(
    tenant: &'a str,
    subject_id: &'a str,
) -> subjects::BoxedQuery<'a, diesel::sqlite::Sqlite, Text> {
    subjects::table
        .filter(subjects::tenant_id.eq(tenant))
        .filter(subjects::merged_into.eq(subject_id))
        .order(subjects::subject_id)
        .select(subjects::subject_id)
        .into_boxed()
}

/// SQL for `IN`: the ids of the subject `subject` names, of the tenant `tenant` names (two
/// parameters or columns): its canonical id and every alias, whichever of them `subject` is.
/// Two index seeks; an `OR` of the two conditions would walk every subject of the tenant.
pub(crate) fn ids_of_subject(tenant: &str, subject: &str) -> String {
    format!(
        "(WITH h (id) AS (SELECT COALESCE(k.merged_into, k.subject_id) FROM subjects k \
           WHERE k.tenant_id = {tenant} AND k.subject_id = {subject}) \
         SELECT id FROM h UNION ALL SELECT g.subject_id FROM subjects g, h \
           WHERE g.tenant_id = {tenant} AND g.merged_into = h.id)"
    )
}

#[cfg(test)]
pub(crate) mod plans {
    use super::*;
    use crate::database::tests::tempdir;
    use crate::Database;
    use diesel::sqlite::Sqlite;
    use diesel::sqlite::SqliteConnection;

    #[derive(QueryableByName)]
    struct Step {
        #[diesel(sql_type = Text)]
        detail: String,
    }

    /// SQLite's plan of `sql` (two parameters: a tenant and a subject), a line per step.
    fn plan(conn: &mut SqliteConnection, sql: &str) -> Vec<String> {
        diesel::sql_query(format!("EXPLAIN QUERY PLAN {sql}"))
            .bind::<Text, _>("tenant")
            .bind::<Text, _>("subject")
            .load::<Step>(conn)
            .expect("a plan")
            .into_iter()
            .map(|s| s.detail)
            .collect()
    }

    /// Reading one subject's ids (its aliases on every company read, with every subscription
    /// and check read by subject) seeks them by index: no step walks all of a tenant's
    /// subjects or subscriptions (a search by the tenant alone, or a scan of a table), which
    /// is what a tenant with 10,000 subjects paid on every cached read before.
    #[test]
    fn a_subjects_ids_are_sought_by_index_never_walked() {
        let (_dir, mut conn) = migrated();
        let aliases = diesel::debug_query::<Sqlite, _>(&aliases_query("t", "s")).to_string();
        let aliases = aliases.split(" -- binds").next().unwrap().to_owned();
        let statements = [
            aliases,
            format!(
                "SELECT s.subscription_id FROM subscriptions s WHERE s.tenant_id = ?1 \
                 AND s.subject_id IN {}",
                ids_of_subject("?1", "?2")
            ),
        ];
        assert_never_walks(&mut conn, &statements);
    }

    /// A migrated scratch store (kept while the folder lives) and a connection to it.
    pub(crate) fn migrated() -> (tempdir::Dir, SqliteConnection) {
        let dir = tempdir::Dir::new();
        let path = dir.0.join("plans.sqlite3");
        drop(Database::open(&path, 1).expect("open"));
        let conn = crate::database::connect(&path).expect("connect");
        (dir, conn)
    }

    /// No step of any statement's plan (two parameters: a tenant and a subject) searches by
    /// the tenant alone or scans a table.
    pub(crate) fn assert_never_walks(conn: &mut SqliteConnection, statements: &[String]) {
        for sql in statements {
            let steps = plan(conn, sql);
            for step in &steps {
                let walks = step.ends_with("(tenant_id=?)")
                    || (step.starts_with("SCAN ")
                        && !step.starts_with("SCAN h")
                        && !step.starts_with("SCAN (subquery"));
                assert!(!walks, "{sql}\n{}", steps.join("\n"));
            }
        }
    }
}
