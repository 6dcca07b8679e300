"""A client of a user's Dask scheduler (``--scheduler ADDRESS``), or one line saying why not.

Dask's own timeout covers the TCP connect, not its handshake: a port that accepts and stays
silent (or speaks another protocol, such as HTTP) held a run forever.  :func:`connect` gives the
connection its own deadline, in a daemon thread, and turns every way it fails into one
:class:`~ntpcheck.common.errors.NTPCheckError`.
"""

from __future__ import annotations

from ntpcheck.common.errors import NTPCheckError

__all__ = ["CONNECT_TIMEOUT", "connect"]

#: Seconds a scheduler has to answer (and to show a worker).
CONNECT_TIMEOUT = 10


def connect(distributed, address: str):
    """A client of the scheduler at ``address`` with a worker, or one-line :class:`NTPCheckError`."""
    import threading

    # Dask's timeout covers the TCP connect, not the handshake: a port that accepts and stays silent
    # (or speaks another protocol) held the run forever.  The connection gets its own deadline, in a
    # daemon thread (one that never returns must not keep the process alive).
    got: dict = {}

    def attempt() -> None:
        try:
            got["client"] = distributed.Client(address, timeout=f"{CONNECT_TIMEOUT}s")
        except BaseException as e:  # noqa: BLE001 - handed to the caller below
            got["error"] = e

    thread = threading.Thread(target=attempt, name="ntpcheck-connect", daemon=True)
    thread.start()
    thread.join(CONNECT_TIMEOUT + 5)
    try:
        if thread.is_alive():
            raise TimeoutError("silent")
        if "error" in got:
            raise got["error"]
        client = got["client"]
    except TimeoutError as e:
        if str(e) != "silent":
            raise NTPCheckError(f"--scheduler {address}: no Dask scheduler answered within {CONNECT_TIMEOUT} s") from None
        raise NTPCheckError(f"--scheduler {address}: something accepts connections there but did not answer as a Dask "
                            f"scheduler within {CONNECT_TIMEOUT + 5} s (another service on that port?)") from None
    except (OSError, TimeoutError, ValueError, TypeError) as e:
        raise NTPCheckError(f"--scheduler {address}: no Dask scheduler answered within {CONNECT_TIMEOUT} s "
                            f"({type(e).__name__}: {' '.join(str(e).split())[:200]})") from None
    except MemoryError:
        raise NTPCheckError(f"--scheduler {address}: what answered there is not a Dask scheduler (it sent a message "
                            "Dask cannot read: another service on that port?)") from None
    # Dask logs each failed reconnection with a traceback; a lost scheduler is said in one line (ClusterLost).
    import logging

    for name in ["distributed", *[n for n in logging.root.manager.loggerDict if n.startswith("distributed.")]]:
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)
    try:
        client.wait_for_workers(1, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError):
        client.close()
        raise NTPCheckError(f"--scheduler {address}: the scheduler has no worker (start one: dask worker {address})") from None
    return client
