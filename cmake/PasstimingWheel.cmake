# What the wheel holds besides the Python package of the `python` component
# (pyproject.toml installs that component alone): the `passtiming` command,
# inside the package as passtiming/_bin/passtiming. The console script
# `passtiming` (passtiming/_cli.py) runs it, so the command finds the package
# it came with (for `passtiming run -- python`), and auditwheel repair points
# it at the shared libraries it copies into the wheel, as it does the
# extensions.
if(TARGET passtiming_cli)
  install(TARGETS passtiming_cli
          RUNTIME DESTINATION "${PASSTIMING_PYTHON_INSTALL_DIR}/passtiming/_bin" COMPONENT python)
endif()
