"""The root command group of ``tcplab``, which mounts each study's own commands lazily.

A study's commands (``tcplab boston ...``) are listed in ``tcplab --help`` from the study index
(``tcplab.report.study_index``, read without importing any study); the study is imported, and
pandas, scipy and matplotlib with it, only when one of its commands is looked up to run. So
``tcplab --version``, ``tcplab run`` and the refusals of bad input stay small and quick.
"""

from __future__ import annotations

import importlib
from functools import cached_property
from typing import TYPE_CHECKING

from typer.core import TyperGroup

from tcplab.report.study_index import StudyEntry, study_index

if TYPE_CHECKING:
    # Typer carries its own copy of click: the types must be that copy's.
    from typer._click import Command, Context, HelpFormatter

__all__ = ["LazyStudyGroup", "study_names"]


def study_names() -> tuple[str, ...]:
    """Every study's name, for help texts (nothing imported)."""
    return tuple(e.name for e in study_index())


class LazyStudyGroup(TyperGroup):
    """The root group: its own commands, plus one group per study that declares ``cli``."""

    @cached_property
    def _studies(self) -> dict[str, StudyEntry]:
        return {e.name: e for e in study_index() if e.has_cli and e.name not in self.commands}

    def list_commands(self, ctx: Context) -> list[str]:
        return sorted({*self.commands, *self._studies})

    def get_command(self, ctx: Context, cmd_name: str) -> Command | None:
        command = self.commands.get(cmd_name)
        if command is not None or cmd_name not in self._studies:
            return command
        try:
            command = _load(self._studies[cmd_name])
        except KeyboardInterrupt:
            # Here click would end the command with status 130 and no word: a study's import
            # takes seconds, long enough for a Ctrl-C that deserves the usual line.
            from tcplab._launch import say_interrupted

            say_interrupted()
            raise SystemExit(130) from None
        if command is not None:
            self.commands[cmd_name] = command
        return command

    def format_commands(self, ctx: Context, formatter: HelpFormatter) -> None:
        """The command list; a study's line comes from the index, so help imports no study."""
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(len(n) for n in names)
        rows = []
        for name in names:
            command = self.commands.get(name)
            if command is None:
                rows.append((name, _short_help(self._studies[name])))
            elif not command.hidden:
                rows.append((name, command.get_short_help_str(limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)


def _short_help(entry: StudyEntry) -> str:
    return f"The {entry.name} study's own commands ({entry.paper})."


def _load(entry: StudyEntry) -> Command | None:
    """The study's commands, imported now; None if the study turns out to declare none (the
    index read its source wrong), which click reports as an unknown command."""
    import typer
    import typer.main

    from tcplab.report.study import Study

    study = getattr(importlib.import_module(entry.module), "STUDY", None)
    if not isinstance(study, Study) or study.cli is None:
        return None
    # Mounted as add_typer would have mounted it on the root app, so its help and its
    # subcommands read as before; only when it happens changes.
    host = typer.Typer(rich_markup_mode=None, add_completion=False, pretty_exceptions_enable=False)
    host.add_typer(study.cli(), name=entry.name, short_help=_short_help(entry))
    group = typer.main.get_command(host)
    return getattr(group, "commands", {}).get(entry.name)
