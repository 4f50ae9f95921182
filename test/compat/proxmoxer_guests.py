"""What a proxmoxer script does with guests, against a running Corral with one node: create a VM
and a container, start them, wait on each task, read their status, stop, clone and delete them.
Prints one JSON document of what it saw.

Run with Debian's /usr/bin/python3 and python3-proxmoxer (tools/test-deps.sh installs it).
Environment: CORRAL_HOST, CORRAL_PORT, CORRAL_PASSWORD (root@pam's), CORRAL_NODE, CORRAL_OSTEMPLATE.
"""
import json
import os

from corral_session import connect, wait

api = connect()
node = api.nodes(os.environ["CORRAL_NODE"])

result = {}

vmid = int(api.cluster.nextid.get())
result["vm_create"] = wait(api, node.qemu.post(vmid=vmid, name="compat-vm", memory=64, cores=1, scsi0="local:0.0625", net0="virtio,bridge=vmbr0"))
config = node.qemu(vmid).config.get()
result["vm_config"] = {"net0": config["net0"].split("=")[0], "scsi0": config["scsi0"].split(",")[0]}
result["vm_start"] = wait(api, node.qemu(vmid).status.start.post())
result["vm_running"] = node.qemu(vmid).status.current.get()["status"]
listed = [vm for vm in api.cluster.resources.get(type="vm") if vm["vmid"] == vmid]
result["vm_resource"] = {"id": listed[0]["id"], "name": listed[0]["name"], "type": listed[0]["type"]}
result["vm_stop"] = wait(api, node.qemu(vmid).status.stop.post())
cloneid = int(api.cluster.nextid.get())
result["vm_clone"] = wait(api, node.qemu(vmid).clone.post(newid=cloneid, name="compat-vm2", full=1))
result["vm_clone_name"] = node.qemu(cloneid).config.get()["name"] if result["vm_clone"] == "OK" else None
result["vm_delete"] = [wait(api, node.qemu(guest).delete(purge=1)) for guest in ([cloneid] if result["vm_clone"] == "OK" else []) + [vmid]]

ctid = int(api.cluster.nextid.get())
result["ct_create"] = wait(api, node.lxc.post(vmid=ctid, hostname="compat-ct", ostemplate=os.environ["CORRAL_OSTEMPLATE"], rootfs="local:0.25", memory=64, net0="name=eth0,bridge=vmbr0,ip=dhcp"))
result["ct_start"] = wait(api, node.lxc(ctid).status.start.post())
result["ct_running"] = node.lxc(ctid).status.current.get()["status"]
result["ct_stop"] = wait(api, node.lxc(ctid).status.stop.post())
cloneid = int(api.cluster.nextid.get())
result["ct_clone"] = wait(api, node.lxc(ctid).clone.post(newid=cloneid, hostname="compat-ct2", full=1))
result["ct_clone_hostname"] = node.lxc(cloneid).config.get()["hostname"] if result["ct_clone"] == "OK" else None
result["ct_delete"] = [wait(api, node.lxc(guest).delete(purge=1)) for guest in ([cloneid] if result["ct_clone"] == "OK" else []) + [ctid]]

print(json.dumps(result))
