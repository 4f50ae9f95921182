"""What a proxmoxer script does with a directory storage, against a running Corral with one node:
define it, upload a container template into it as proxmoxer uploads files (a multipart form, the
file as the part `filename`), find it in the storage's content as Ansible's lxc module looks for
its ostemplate, delete it and the storage. Prints one JSON document of what it saw.

Run with Debian's /usr/bin/python3 and python3-proxmoxer (tools/test-deps.sh installs it).
Environment: CORRAL_HOST, CORRAL_PORT, CORRAL_PASSWORD (root@pam's), CORRAL_NODE, CORRAL_FILE
(the template to upload).
"""
import hashlib
import json
import os
import time
import warnings

from proxmoxer import ProxmoxAPI

warnings.filterwarnings("ignore")  # the self-signed certificate (verify_ssl=False)

api = ProxmoxAPI(os.environ["CORRAL_HOST"], port=int(os.environ["CORRAL_PORT"]), user="root@pam", password=os.environ["CORRAL_PASSWORD"], verify_ssl=False)
node = api.nodes(os.environ["CORRAL_NODE"])
path = os.environ["CORRAL_FILE"]


def wait(upid, timeout=120):
    """proxmoxer 2's Tasks.blocking_status: poll the task of a UPID until it has stopped."""
    fields = upid.split(":")
    deadline = time.time() + timeout
    while time.time() < deadline:
        status = api.nodes(fields[1]).tasks(upid).status.get()
        if status["status"] == "stopped":
            return status["exitstatus"]
        time.sleep(0.2)
    raise TimeoutError(upid)


result = {}
result["create"] = api.storage.post(storage="compat", type="dir", path="/srv/compat", content="vztmpl,iso")
with open(path, "rb") as file:
    digest = hashlib.sha256(file.read()).hexdigest()
with open(path, "rb") as file:
    result["upload"] = wait(node.storage("compat").upload.post(content="vztmpl", checksum=digest, **{"checksum-algorithm": "sha256"}, filename=file))
result["content"] = [(entry["volid"], entry["format"], entry["size"]) for entry in node.storage("compat").content.get(content="vztmpl")]
volid = "compat:vztmpl/" + os.path.basename(path)
result["delete"] = wait(node.storage("compat").content(volid.replace("/", "%2F")).delete())
result["after_delete"] = node.storage("compat").content.get()
result["remove"] = api.storage("compat").delete()
print(json.dumps(result))
