"""Install, uninstall, diagnose and simulate a rendered harness in a user's (or a project's)
vendor configs: surgical merges that leave everything else byte for byte, a ledger for exact
reversal, atomic writes, backups and a lock."""
