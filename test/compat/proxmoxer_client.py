"""What a proxmoxer user does first, against a running Corral: log in with a password, create an
API token, log in with it, list /access/users and read /version. Prints one JSON document.

Run with Debian's /usr/bin/python3 and python3-proxmoxer (tools/test-deps.sh installs it).
Environment: CORRAL_HOST, CORRAL_PORT, CORRAL_PASSWORD (root@pam's).
"""
import json
import os
import warnings

from proxmoxer import ProxmoxAPI
from proxmoxer.backends.https import AuthenticationError

warnings.filterwarnings("ignore")  # the self-signed certificate (verify_ssl=False)

host = os.environ["CORRAL_HOST"]
port = int(os.environ["CORRAL_PORT"])
password = os.environ["CORRAL_PASSWORD"]


def session(api):
    return {
        "version": api.version.get(),
        "users": sorted(user["userid"] for user in api.access.users.get()),
    }


result = {}
with_password = ProxmoxAPI(host, port=port, user="root@pam", password=password, verify_ssl=False)
result["password"] = session(with_password)

token = with_password.access.users("root@pam").token("proxmoxer").post(privsep=0, comment="compat test")
result["token_created"] = {"full-tokenid": token["full-tokenid"], "info": token["info"]}
with_token = ProxmoxAPI(host, port=port, user="root@pam", token_name="proxmoxer", token_value=token["value"], verify_ssl=False)
result["token"] = session(with_token)

try:
    ProxmoxAPI(host, port=port, user="root@pam", password="not-the-password", verify_ssl=False)
    result["wrong_password"] = "accepted"
except AuthenticationError:
    result["wrong_password"] = "AuthenticationError"

print(json.dumps(result))
