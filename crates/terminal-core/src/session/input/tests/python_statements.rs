//! Python source as a REPL holds it: whether it ends in a complete statement.

use super::super::python_ends_complete;

/// A complete simple statement last (its prompt after it is none of the REPL's), not one that
/// opens a block or ends inside a bracket, a string or a backslash line.
#[test]
fn python_source_ending_in_a_complete_statement_is_told() {
    for done in [
        "x = input('... ')\n",
        "import sys\nx = (\n  input('... '))\n",
    ] {
        assert!(python_ends_complete(done), "{done:?}");
    }
    let open = [
        "def f():\n",
        "for i in y: x = input()\n",
        "x = input(\n",
        "x = \\\n",
        "s = '''\n",
    ];
    for open in open {
        assert!(!python_ends_complete(open), "{open:?}");
    }
}
