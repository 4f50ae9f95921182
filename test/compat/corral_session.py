"""What the compatibility scripts share: a proxmoxer session as root@pam against the Corral the
environment names (CORRAL_HOST, CORRAL_PORT, CORRAL_PASSWORD), and waiting for a task as
proxmoxer 2's Tasks.blocking_status does (Debian's proxmoxer 1.2 has no tools module).
"""
import os
import time
import warnings

from proxmoxer import ProxmoxAPI

warnings.filterwarnings("ignore")  # the self-signed certificate (verify_ssl=False)


def connect():
    return ProxmoxAPI(os.environ["CORRAL_HOST"], port=int(os.environ["CORRAL_PORT"]), user="root@pam", password=os.environ["CORRAL_PASSWORD"], verify_ssl=False)


def wait(api, upid, timeout=120):
    """Polls the task of a UPID until it has stopped and returns its exit status."""
    fields = upid.split(":")
    assert len(fields) == 9 and fields[0] == "UPID", upid
    deadline = time.time() + timeout
    while time.time() < deadline:
        status = api.nodes(fields[1]).tasks(upid).status.get()
        if status["status"] == "stopped":
            return status["exitstatus"]
        time.sleep(0.2)
    raise TimeoutError(upid)
