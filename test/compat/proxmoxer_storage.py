"""What a proxmoxer script does with a directory storage, against a running Corral with one node:
define it, upload a container template into it as proxmoxer uploads files (a multipart form, the
file as the part `filename`), find it in the storage's content as Ansible's lxc module looks for
its ostemplate, delete it and the storage; then prune the backups of `local` by a retention rule,
looking first. Prints one JSON document of what it saw.

Run with Debian's /usr/bin/python3 and python3-proxmoxer (tools/test-deps.sh installs it).
Environment: CORRAL_HOST, CORRAL_PORT, CORRAL_PASSWORD (root@pam's), CORRAL_NODE, CORRAL_FILE
(the template to upload).
"""
import hashlib
import json
import os

from corral_session import connect, wait

api = connect()
node = api.nodes(os.environ["CORRAL_NODE"])
path = os.environ["CORRAL_FILE"]

result = {}
result["create"] = api.storage.post(storage="compat", type="dir", path="/srv/compat", content="vztmpl,iso")
with open(path, "rb") as file:
    digest = hashlib.sha256(file.read()).hexdigest()
with open(path, "rb") as file:
    result["upload"] = wait(api, node.storage("compat").upload.post(content="vztmpl", checksum=digest, **{"checksum-algorithm": "sha256"}, filename=file))
result["content"] = [(entry["volid"], entry["format"], entry["size"]) for entry in node.storage("compat").content.get(content="vztmpl")]
volid = "compat:vztmpl/" + os.path.basename(path)
result["delete"] = wait(api, node.storage("compat").content(volid.replace("/", "%2F")).delete())
result["after_delete"] = node.storage("compat").content.get()
result["remove"] = api.storage("compat").delete()
retention = {"prune-backups": "keep-last=1"}
result["prune_dry_run"] = [(entry["volid"], entry["mark"]) for entry in node.storage("local").prunebackups.get(**retention)]
result["prune"] = wait(api, node.storage("local").prunebackups.delete(**retention))
result["backups_after_prune"] = [entry["volid"] for entry in node.storage("local").content.get(content="backup")]
print(json.dumps(result))
