"""The grading command line (``python -m grading``): its subcommands and their table."""
import re

import pytest

import grading.__main__ as cli


def test_every_subcommand_the_parser_takes_has_its_entry_in_the_table_and_its_line_in_the_help():
    offered = set(re.search(r"\{([^}]*)\}", cli._parser().format_usage()).group(1).split(","))
    assert offered == set(cli.COMMANDS)
    for name in cli.COMMANDS:
        assert re.search(rf"^  {re.escape(name)}\s", cli.__doc__, re.M), name


def test_a_subcommand_s_error_is_one_line_and_status_2(tmp_path, capsys):
    assert cli.main(["--course", str(tmp_path), "release"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "is not a course directory" in err and err.count("\n") == 1
    with pytest.raises(SystemExit):
        cli.main(["no-such-command"])
