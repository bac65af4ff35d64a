-- One index on usage_requests by app and time, not two: 009's (app, created_at, end_user) serves
-- every query 002's (app, created_at) served (it is its prefix), and each ledger row paid to insert
-- into both (bench/instructions.ts, issue 44). Numbered 015 to stay clear of the round's 012-014.
DROP INDEX IF EXISTS usage_requests_app_created;
