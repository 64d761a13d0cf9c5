//! Workspace-level integration tests; see the files under `tests/tests/`.
