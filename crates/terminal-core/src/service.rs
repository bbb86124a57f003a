//! Placeholder: the Terminals service is being written.
