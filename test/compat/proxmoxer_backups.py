"""What a proxmoxer script does with backups, against a running Corral with one node: back up a VM
as Ansible's proxmox_backup module does (POST /nodes/{node}/vzdump), find the archive in the
storage's content, delete the VM and restore it from the archive (qm create --archive), then
define, read and remove a backup job. Prints one JSON document of what it saw.

Run with Debian's /usr/bin/python3 and python3-proxmoxer (tools/test-deps.sh installs it).
Environment: CORRAL_HOST, CORRAL_PORT, CORRAL_PASSWORD (root@pam's), CORRAL_NODE, CORRAL_STORAGE
(a storage that holds backups).
"""
import json
import os

from corral_session import connect, wait

api = connect()
node = api.nodes(os.environ["CORRAL_NODE"])
storage = os.environ["CORRAL_STORAGE"]

result = {}
result["create"] = wait(api, node.qemu.post(vmid=150, name="compat", memory=64, scsi0="local:0.0625"))
config = node.qemu(150).config.get()
result["backup"] = wait(api, node.vzdump.post(vmid=150, storage=storage, mode="snapshot", compress="zstd"))
archives = node.storage(storage).content.get(content="backup", vmid=150)
result["archives"] = [(entry["format"], entry["subtype"], entry["vmid"]) for entry in archives]
result["delete"] = wait(api, node.qemu(150).delete())
result["restore"] = wait(api, node.qemu.post(vmid=150, archive=archives[0]["volid"]))
result["same_config"] = node.qemu(150).config.get() == config
result["job"] = api.cluster.backup.post(id="nightly", schedule="sat 02:00", storage=storage, vmid="150", mode="snapshot", compress="zstd", **{"prune-backups": "keep-last=3"})
job = api.cluster.backup("nightly").get()
result["job_read"] = {key: job[key] for key in ("id", "schedule", "vmid", "storage", "enabled", "type")}
result["job_next_run"] = isinstance(job.get("next-run"), int)
result["jobs"] = [entry["id"] for entry in api.cluster.backup.get()]
result["job_delete"] = api.cluster.backup("nightly").delete()
result["destroy"] = wait(api, node.qemu(150).delete())
print(json.dumps(result))
