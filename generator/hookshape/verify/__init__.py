"""`hookshape verify`: the real vendor CLI installed on the machine runs one scripted turn, offline,
against a mock model that ships here (mock/), with the user's harness installed in a scratch home;
the same machinery runs the project's live tier."""
