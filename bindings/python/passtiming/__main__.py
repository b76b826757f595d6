"""``python -m passtiming ARGS...`` is the ``passtiming`` command."""

from ._cli import main

main()
