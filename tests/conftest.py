"""Test-session hooks shared by tests/."""


def pytest_terminal_summary(terminalreporter):
    """Show what a test recorded for the reader: ``report`` lines, then its ``checks_summary`` line last.

    The deployment test counts its own checks and records ``N passed, N failed``; recorded
    properties also reach this hook from pytest-xdist's workers.
    """
    notes, summaries = [], []
    for reports in terminalreporter.stats.values():
        for report in reports:
            if getattr(report, "when", "call") != "call":
                continue
            for key, value in getattr(report, "user_properties", ()):
                if key == "report":
                    notes.append(value)
                elif key == "checks_summary":
                    summaries.append(value)
    for line in notes + summaries:
        terminalreporter.write_line(line)
