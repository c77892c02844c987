"""A plan applied to a user's (or a project's) vendor configs: surgical merges that leave
everything else byte for byte, a ledger for exact reversal, atomic writes, backups and a lock;
and uninstall, its exact reversal."""
