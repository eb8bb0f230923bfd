#!/usr/bin/env python3
"""Writes the audit logs of the worked incident "Removed hung on in-progress
imports" (reference samples-operator.md §14.3, Bugzilla 1782683), as the two
apiservers of an OpenShift cluster write them with the WriteRequestBodies
audit profile (writes at RequestResponse, reads at Metadata):

  samples-removal-hang.kube-apiserver.audit.log      Config, ClusterOperator, Lease
  samples-removal-hang.openshift-apiserver.audit.log ImageStream, ImageStreamImport

The story (2026-11-23, UTC):
  10:00:00  an admin sets the samples Config to Managed (it was Removed).
  10:00:01  cluster-samples-operator creates the 50 imagestreams of the real
            inventory (datasets/samples/ocp-x86_64; templates left
            out); the image import controller imports them over two minutes,
            except jenkins, jenkins-agent-base and fuse7-java-openshift, whose
            registry pulls hang.
  10:04:12  the admin sets Removed again. The operator of that era (before
            commit 4fa715d) gates removal on ImageChangesInProgress being
            False: RemovePending goes True and stays, ImageChangesInProgress
            names the three streams.
  10:44:37  the three imports fail (i/o timeout); ImageChangesInProgress goes
            False and the operator finally deletes every imagestream and
            reports Removed.

kube-apiserver's log is far busier than openshift-apiserver's and rotates
sooner: the file kept starts at 10:03:31 (its older backup was not
collected), so the Config first shows with the admin's Removed patch, while
the imagestreams are known from 10:00 on.

Deterministic: ids and digests are hashes of names. Run from anywhere:
  python3 examples/incidents/make_samples_removal_hang.py [INVENTORY_DIR]
"""
import copy
import datetime
import glob
import hashlib
import json
import os
import sys

KUBE_LOG_START = 211.0  # 10:03:31
HERE = os.path.dirname(os.path.abspath(__file__))
INVENTORY = sys.argv[1] if len(sys.argv) > 1 else "datasets/samples/ocp-x86_64"
DAY = datetime.datetime(2026, 11, 23, tzinfo=datetime.timezone.utc)
VERSION = "4.16.0"
STUCK = {"jenkins": "registry.redhat.io/ocp-tools-4/jenkins-rhel9",
         "jenkins-agent-base": "registry.redhat.io/ocp-tools-4/jenkins-agent-base-rhel9",
         "fuse7-java-openshift": "registry.redhat.io/fuse7/fuse-java-openshift-rhel8"}

OPERATOR_SA = "system:serviceaccount:openshift-cluster-samples-operator:cluster-samples-operator"
OPERATOR_UA = "cluster-samples-operator/v0.0.0 (linux/amd64) kubernetes/$Format"
IMPORTER_SA = "system:serviceaccount:openshift-infra:image-import-controller"
IMPORTER_UA = "openshift-controller-manager/v0.0.0 (linux/amd64) kubernetes/$Format/system:serviceaccount:openshift-infra:image-import-controller"
ADMIN = "kube:admin"
ADMIN_UA = "oc/4.16.0 (linux/amd64) kubernetes/ee9a5ae"


def h(*parts, n=32):
    return hashlib.sha256("/".join(parts).encode()).hexdigest()[:n]


def uid(*parts):
    x = h(*parts)
    return f"{x[:8]}-{x[8:12]}-{x[12:16]}-{x[16:20]}-{x[20:32]}"


def ts(seconds):
    """RFC 3339 with microseconds, as the apiserver writes stageTimestamp."""
    t = DAY + datetime.timedelta(hours=10, seconds=seconds)
    return t.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def ts_s(seconds):
    t = DAY + datetime.timedelta(hours=10, seconds=seconds)
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


class Etcd:
    """One revision counter: both apiservers share the cluster's etcd."""
    rv = 48211903

    @classmethod
    def next(cls):
        cls.rv += 7  # other writers in the cluster between ours
        return str(cls.rv)


LOGS = {"kube": [], "openshift": []}


def audit(log, at, verb, user, ua, ref, code, response=None, request=None, level="RequestResponse",
          latency=0.012, stage="ResponseComplete"):
    # Bodies as they were at this moment (the objects change later).
    response, request = copy.deepcopy(response), copy.deepcopy(request)
    ev = {"kind": "Event", "apiVersion": "audit.k8s.io/v1", "level": level,
          "auditID": uid("audit", log, str(len(LOGS[log])), verb, ref.get("name", "")),
          "stage": stage, "requestURI": uri(ref, verb), "verb": verb,
          "user": {"username": user,
                   "groups": ["system:authenticated"] + (["system:serviceaccounts"] if user.startswith("system:serviceaccount") else ["system:cluster-admins"])},
          "sourceIPs": ["10.128.0.35" if user == OPERATOR_SA else "10.129.0.12" if user == IMPORTER_SA else "192.168.126.1"],
          "userAgent": ua, "objectRef": ref,
          "responseStatus": {"metadata": {}, "code": code}}
    if code >= 400:
        ev["responseStatus"].update({"status": "Failure", "reason": "Conflict" if code == 409 else "InternalError",
                                     "message": response["message"] if response else ""})
    if level == "RequestResponse":
        if request is not None:
            ev["requestObject"] = request
        if response is not None:
            ev["responseObject"] = response
    elif level == "Request" and request is not None:
        ev["requestObject"] = request
    ev["requestReceivedTimestamp"] = ts(at - latency)
    ev["stageTimestamp"] = ts(at)
    ev["annotations"] = {"authorization.k8s.io/decision": "allow",
                         "authorization.k8s.io/reason": "RBAC: allowed by ClusterRoleBinding" if user != ADMIN else "RBAC: allowed by ClusterRoleBinding \"cluster-admins\" of ClusterRole \"cluster-admin\" to Group \"system:cluster-admins\""}
    LOGS[log].append((at, ev))


def uri(ref, verb):
    g = ref.get("apiGroup")
    base = f"/apis/{g}/{ref['apiVersion']}" if g else f"/api/{ref['apiVersion']}"
    if ref.get("namespace"):
        base += f"/namespaces/{ref['namespace']}"
    base += f"/{ref['resource']}"
    if ref.get("name") and verb not in ("list", "watch", "create"):
        base += f"/{ref['name']}"
    if ref.get("subresource"):
        base += f"/{ref['subresource']}"
    if verb == "watch":
        base += "?allowWatchBookmarks=true&resourceVersion=48211000&timeout=9m12s&watch=true"
    return base


def managed(manager, operation, at, api, fields, subresource=None):
    m = {"manager": manager, "operation": operation, "apiVersion": api, "time": ts_s(at),
         "fieldsType": "FieldsV1", "fieldsV1": fields}
    if subresource:
        m["subresource"] = subresource
    return m


# ---------------------------------------------------------------- the Config
CONFIG_CREATED = "2026-06-02T08:14:51Z"
config = {
    "apiVersion": "samples.operator.openshift.io/v1", "kind": "Config",
    "metadata": {"name": "cluster", "uid": uid("config"), "generation": 4,
                 "creationTimestamp": CONFIG_CREATED,
                 "finalizers": ["samples.operator.openshift.io/finalizer"],
                 "managedFields": []},
    "spec": {"managementState": "Removed", "architectures": ["x86_64"]},
    "status": {"managementState": "Removed", "version": VERSION, "architectures": [],
               "conditions": []},
}
CONDS = ["SamplesExist", "ImportCredentialsExist", "ConfigurationValid", "ImageChangesInProgress",
         "RemovePending", "MigrationInProgress", "ImportImageErrorsExist"]
cond_state = {"SamplesExist": "False", "ImportCredentialsExist": "True", "ConfigurationValid": "True",
              "ImageChangesInProgress": "False", "RemovePending": "False", "MigrationInProgress": "False",
              "ImportImageErrorsExist": "False"}
cond_time = {c: "2026-11-20T16:02:09Z" for c in CONDS}
cond_reason = {c: "" for c in CONDS}


def config_conditions():
    out = []
    for c in CONDS:
        e = {"type": c, "status": cond_state[c], "lastUpdateTime": cond_time[c], "lastTransitionTime": cond_time[c]}
        if cond_reason[c]:
            e["reason"] = cond_reason[c]
        out.append(e)
    return out


def set_cond(c, status, at, reason=""):
    if cond_state[c] != status:
        cond_time[c] = ts_s(at)
    cond_state[c] = status
    cond_reason[c] = reason


config_managers = {
    "cluster-samples-operator": managed("cluster-samples-operator", "Update", 0, "samples.operator.openshift.io/v1",
                                        {"f:metadata": {"f:finalizers": {".": {}, "v:\"samples.operator.openshift.io/finalizer\"": {}}},
                                         "f:spec": {".": {}, "f:architectures": {}}}),
    "kubectl-patch": None,
    "cluster-samples-operator/status": None,
}
config_managers["cluster-samples-operator"]["time"] = CONFIG_CREATED


def config_object(rv):
    o = copy.deepcopy(config)
    o["metadata"]["resourceVersion"] = rv
    o["metadata"]["managedFields"] = [m for m in config_managers.values() if m]
    o["status"]["conditions"] = config_conditions()
    return o


CONFIG_REF = {"resource": "configs", "name": "cluster", "apiGroup": "samples.operator.openshift.io", "apiVersion": "v1"}


def admin_patch_config(at, state):
    config["spec"]["managementState"] = state
    config["metadata"]["generation"] += 1
    config_managers["kubectl-patch"] = managed("kubectl-patch", "Update", at, "samples.operator.openshift.io/v1",
                                               {"f:spec": {"f:managementState": {}}})
    rv = Etcd.next()
    audit("kube", at, "patch", ADMIN, ADMIN_UA, dict(CONFIG_REF, resourceVersion=""), 200,
          response=config_object(rv), request={"spec": {"managementState": state}}, latency=0.021)


def operator_config_status(at, conflict_first=False):
    if conflict_first:
        audit("kube", at - 0.05, "update", OPERATOR_SA, OPERATOR_UA, dict(CONFIG_REF, subresource="status"), 409,
              response={"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                        "message": "Operation cannot be fulfilled on configs.samples.operator.openshift.io \"cluster\": the object has been modified; please apply your changes to the latest version and try again",
                        "reason": "Conflict", "details": {"name": "cluster", "group": "samples.operator.openshift.io", "kind": "configs"},
                        "code": 409})
    config_managers["cluster-samples-operator/status"] = managed(
        "cluster-samples-operator", "Update", at, "samples.operator.openshift.io/v1",
        {"f:status": {".": {}, "f:architectures": {}, "f:conditions": {}, "f:managementState": {}, "f:version": {}}},
        subresource="status")
    rv = Etcd.next()
    obj = config_object(rv)
    audit("kube", at, "update", OPERATOR_SA, OPERATOR_UA, dict(CONFIG_REF, subresource="status", resourceVersion=rv), 200,
          response=obj, request=obj)


# ---------------------------------------------------------------- the ClusterOperator
co_conds = {"Available": ("False", "CurrentlyRemoved", ""), "Progressing": ("False", "CurrentlyRemoved", ""),
            "Degraded": ("False", "", "")}
co_time = {k: "2026-11-20T16:02:09Z" for k in co_conds}
CO_REF = {"resource": "clusteroperators", "name": "openshift-samples", "apiGroup": "config.openshift.io",
          "apiVersion": "v1", "subresource": "status"}


def co_status(at, cond, status, reason, message):
    if co_conds[cond][0] != status:
        co_time[cond] = ts_s(at)
    co_conds[cond] = (status, reason, message)
    rv = Etcd.next()
    conds = []
    for k in ("Degraded", "Available", "Progressing"):
        s, r, m = co_conds[k]
        e = {"type": k, "status": s, "lastTransitionTime": co_time[k]}
        if r:
            e["reason"] = r
        if m:
            e["message"] = m
        conds.append(e)
    obj = {"apiVersion": "config.openshift.io/v1", "kind": "ClusterOperator",
           "metadata": {"name": "openshift-samples", "uid": uid("co"), "resourceVersion": rv, "generation": 1,
                        "creationTimestamp": CONFIG_CREATED,
                        "managedFields": [managed("cluster-samples-operator", "Update", at, "config.openshift.io/v1",
                                                  {"f:status": {".": {}, "f:conditions": {}, "f:relatedObjects": {},
                                                                "f:versions": {}}}, subresource="status")]},
           "spec": {},
           "status": {"conditions": conds,
                      "relatedObjects": [{"group": "samples.operator.openshift.io", "resource": "configs", "name": "cluster"},
                                         {"group": "", "resource": "namespaces", "name": "openshift-cluster-samples-operator"},
                                         {"group": "template.openshift.io", "resource": "templates", "namespace": "openshift", "name": ""},
                                         {"group": "image.openshift.io", "resource": "imagestreams", "namespace": "openshift", "name": ""}],
                      "versions": [{"name": "operator", "version": VERSION}]}}
    audit("kube", at, "update", OPERATOR_SA, OPERATOR_UA, dict(CO_REF, resourceVersion=rv), 200, response=obj, request=obj)


# ---------------------------------------------------------------- imagestreams
def load_inventory():
    out = []
    for f in sorted(glob.glob(os.path.join(INVENTORY, "*", "imagestreams", "*.json"))):
        with open(f) as fh:
            out.append(json.load(fh))
    return sorted(out, key=lambda d: d["metadata"]["name"])


streams = {}  # name -> current object


def is_ref(name, sub=None, resource="imagestreams"):
    r = {"resource": resource, "namespace": "openshift", "name": name, "apiGroup": "image.openshift.io", "apiVersion": "v1"}
    if sub:
        r["subresource"] = sub
    return r


def create_stream(at, inv):
    name = inv["metadata"]["name"]
    o = copy.deepcopy(inv)
    md = o["metadata"]
    md.pop("creationTimestamp", None)
    md["namespace"] = "openshift"
    md["labels"] = {"samples.operator.openshift.io/managed": "true"}
    md["annotations"] = dict(md.get("annotations", {}), **{"samples.operator.openshift.io/version": VERSION})
    for t in o["spec"]["tags"]:
        t["generation"] = 1
    request = copy.deepcopy(o)
    md["uid"] = uid("is", name)
    md["resourceVersion"] = Etcd.next()
    md["generation"] = 1
    md["creationTimestamp"] = ts_s(at)
    md["managedFields"] = [managed("cluster-samples-operator", "Update", at, "image.openshift.io/v1",
                                   {"f:metadata": {"f:annotations": {".": {}, "f:openshift.io/display-name": {},
                                                                     "f:samples.operator.openshift.io/version": {}},
                                                   "f:labels": {".": {}, "f:samples.operator.openshift.io/managed": {}}},
                                    "f:spec": {"f:lookupPolicy": {".": {}, "f:local": {}}, "f:tags": {}}})]
    o["status"] = {"dockerImageRepository": f"image-registry.openshift-image-registry.svc:5000/openshift/{name}"}
    streams[name] = o
    audit("openshift", at, "create", OPERATOR_SA, OPERATOR_UA, is_ref(name), 201, response=o, request=request,
          latency=0.034)


def docker_tags(o):
    return [t for t in o["spec"]["tags"] if t.get("from", {}).get("kind") == "DockerImage"]


def import_stream(at, name, fail_message=None):
    """The image import controller's ImageStreamImport: its answer's
    status.import is the stream as openshift-apiserver updated it."""
    o = streams[name]
    o["metadata"]["resourceVersion"] = Etcd.next()
    tags = []
    images = []
    for t in o["spec"]["tags"]:
        frm = t.get("from", {})
        if frm.get("kind") == "DockerImage":
            if fail_message:
                tags.append({"tag": t["name"], "items": None, "conditions": [
                    {"type": "ImportSuccess", "status": "False", "lastTransitionTime": ts_s(at), "reason": "InternalError",
                     "message": fail_message.format(image=frm["name"]), "generation": 1}]})
                images.append({"tag": t["name"], "status": {"metadata": {}, "status": "Failure", "reason": "InternalError",
                                                              "message": fail_message.format(image=frm["name"]), "code": 500}})
                continue
            digest = "sha256:" + h("image", frm["name"], n=64)
            repo = frm["name"].rsplit(":", 1)[0]
            tags.append({"tag": t["name"], "items": [{"created": ts_s(at), "dockerImageReference": f"{repo}@{digest}",
                                                     "image": digest, "generation": 1}]})
            images.append({"tag": t["name"], "status": {"metadata": {}, "status": "Success"},
                           "image": {"metadata": {"name": digest, "creationTimestamp": None},
                                     "dockerImageReference": f"{repo}@{digest}"}})
        elif frm.get("kind") == "ImageStreamTag" and not fail_message:
            target = frm["name"].split(":")[-1]
            src = next((x for x in o["spec"]["tags"] if x["name"] == target), None)
            if src and src.get("from", {}).get("kind") == "DockerImage":
                digest = "sha256:" + h("image", src["from"]["name"], n=64)
                repo = src["from"]["name"].rsplit(":", 1)[0]
                tags.append({"tag": t["name"], "items": [{"created": ts_s(at), "dockerImageReference": f"{repo}@{digest}",
                                                         "image": digest, "generation": 1}]})
    o["status"]["publicDockerImageRepository"] = f"default-route-openshift-image-registry.apps.ci-ln-7x2k4qb.example.com/openshift/{name}"
    o["status"]["tags"] = tags
    spec_images = [{"from": {"kind": "DockerImage", "name": t["from"]["name"]}, "to": {"name": t["name"]},
                    "importPolicy": {}, "referencePolicy": {"type": "Local"}} for t in docker_tags(o)]
    isi = {"kind": "ImageStreamImport", "apiVersion": "image.openshift.io/v1",
           "metadata": {"name": name, "namespace": "openshift", "creationTimestamp": None},
           "spec": {"import": True, "images": spec_images}}
    response = copy.deepcopy(isi)
    response["status"] = {"import": copy.deepcopy(o), "images": images}
    audit("openshift", at, "create", IMPORTER_SA, IMPORTER_UA, is_ref(name, resource="imagestreamimports"), 201,
          response=response, request=isi, latency=2.4 if not fail_message else 30.0)


def delete_stream(at, name):
    o = streams.pop(name)
    audit("openshift", at, "delete", OPERATOR_SA, OPERATOR_UA, is_ref(name), 200,
          response={"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
                    "details": {"name": name, "group": "image.openshift.io", "kind": "imagestreams",
                                "uid": o["metadata"]["uid"]}},
          request={"kind": "DeleteOptions", "apiVersion": "image.openshift.io/v1", "propagationPolicy": "Background"},
          latency=0.018)


# ---------------------------------------------------------------- noise
def lease(at):
    rv = Etcd.next()
    obj = {"kind": "Lease", "apiVersion": "coordination.k8s.io/v1",
           "metadata": {"name": "cluster-samples-operator-lock", "namespace": "openshift-cluster-samples-operator",
                        "uid": uid("lease"), "resourceVersion": rv, "creationTimestamp": CONFIG_CREATED,
                        "managedFields": [managed("cluster-samples-operator", "Update", at, "coordination.k8s.io/v1",
                                                  {"f:spec": {"f:acquireTime": {}, "f:holderIdentity": {},
                                                              "f:leaseDurationSeconds": {}, "f:leaseTransitions": {},
                                                              "f:renewTime": {}}})]},
           "spec": {"holderIdentity": "cluster-samples-operator-6b8f4d5c7-x2xkq_" + uid("holder"),
                    "leaseDurationSeconds": 137, "acquireTime": "2026-11-20T16:01:58.000000Z",
                    "renewTime": ts(at - 0.004), "leaseTransitions": 3}}
    audit("kube", at, "update", OPERATOR_SA, OPERATOR_UA,
          {"resource": "leases", "namespace": "openshift-cluster-samples-operator", "name": "cluster-samples-operator-lock",
           "apiGroup": "coordination.k8s.io", "apiVersion": "v1"}, 200, response=obj, request=obj, latency=0.006)


def read(log, at, verb, ref, user=OPERATOR_SA, ua=OPERATOR_UA):
    audit(log, at, verb, user, ua, ref, 200, level="Metadata", latency=0.003 if verb != "watch" else 552.0)


# ---------------------------------------------------------------- the story
inventory = load_inventory()
names = [d["metadata"]["name"] for d in inventory]
for n in STUCK:
    assert n in names, n

# The admin turns samples on.
read("kube", 0.101, "get", CONFIG_REF, ADMIN, ADMIN_UA)
admin_patch_config(0.412, "Managed")
# Operator: status Managed first (one event), then the bulk upsert.
co_status(0.731, "Progressing", "True", "", f"Samples processing to {VERSION}")
config["status"]["managementState"] = "Managed"
set_cond("RemovePending", "False", 0.74)
operator_config_status(0.78)
read("openshift", 0.93, "list", {"resource": "imagestreams", "namespace": "openshift", "apiGroup": "image.openshift.io", "apiVersion": "v1"})
t = 1.2
for inv in inventory:
    create_stream(t, inv)
    t += 0.137
# Old behaviour: the bulk upsert marks every stream in progress.
in_progress = list(names)
set_cond("SamplesExist", "True", t + 0.2)
set_cond("ImageChangesInProgress", "True", t + 0.2, " ".join(in_progress))
config["status"]["architectures"] = ["x86_64"]
operator_config_status(t + 0.25, conflict_first=True)
co_status(t + 0.4, "Available", "True", "", f"Samples installation successful at {VERSION}")

# Imports complete over two minutes, except the stuck ones.
done_at = {}
for i, n in enumerate(names):
    if n in STUCK:
        continue
    done_at[n] = 14.0 + (i * 2.31) % 110.0
for n, at in sorted(done_at.items(), key=lambda kv: kv[1]):
    import_stream(at, n)
# The operator updates ImageChangesInProgress as streams finish (old code
# kept the names in the reason); it writes in batches as its queue drains.
for cut in (45.0, 90.0, 131.0):
    in_progress = [n for n in names if n in STUCK or done_at[n] > cut]
    set_cond("ImageChangesInProgress", "True", cut, " ".join(in_progress))
    operator_config_status(cut + 0.6)

# 10:04:12 the admin turns samples off again.
REMOVED_AT = 252.0
read("kube", REMOVED_AT - 0.3, "get", CONFIG_REF, ADMIN, ADMIN_UA)
admin_patch_config(REMOVED_AT, "Removed")
set_cond("RemovePending", "True", REMOVED_AT + 0.4)
operator_config_status(REMOVED_AT + 0.45, conflict_first=True)
co_status(REMOVED_AT + 0.6, "Progressing", "True", "", f"Deleting samples at {VERSION}")
# ... and the operator waits: every resync re-writes nothing; an admin looks.
for k in range(1, 5):
    read("kube", REMOVED_AT + k * 600.0, "get", CONFIG_REF, ADMIN, ADMIN_UA)
    read("openshift", REMOVED_AT + k * 600.0 + 1.1, "list",
         {"resource": "imagestreams", "namespace": "openshift", "apiGroup": "image.openshift.io", "apiVersion": "v1"},
         ADMIN, ADMIN_UA)

# 10:44:37 the hung imports fail.
FAIL_AT = 2677.0
for j, n in enumerate(sorted(STUCK)):
    import_stream(FAIL_AT + j * 0.8, n,
                  fail_message="Internal error occurred: {image}: Get \"https://registry.redhat.io/v2/\": dial tcp 23.47.80.212:443: i/o timeout")
# Old operator: no stream in progress any more, so removal proceeds.
set_cond("ImageChangesInProgress", "False", FAIL_AT + 3.0)
operator_config_status(FAIL_AT + 3.1)
t = FAIL_AT + 3.5
for n in names:
    delete_stream(t, n)
    t += 0.061
set_cond("SamplesExist", "False", t + 0.1)
set_cond("ImportImageErrorsExist", "False", t + 0.1)
config["status"]["managementState"] = "Removed"
config["status"]["architectures"] = []
operator_config_status(t + 0.15)
co_status(t + 0.3, "Progressing", "False", "CurrentlyRemoved",
          f"Samples installation was previously successful at {VERSION} but the samples operator is now Removed")
co_status(t + 0.35, "Available", "True", "CurrentlyRemoved",
          f"Samples installation was previously successful at {VERSION} but the samples operator is now Removed")
set_cond("RemovePending", "False", t + 0.5)
operator_config_status(t + 0.55)

# Leader election renewals every 26s (library-go's retry period), and the
# operator's watches ending and restarting.
for k in range(0, int(t // 26) + 2):
    lease(3.9 + 26.0 * k)
for k in range(0, 6):
    read("kube", 41.0 + 552.0 * k, "watch", {"resource": "configs", "apiGroup": "samples.operator.openshift.io", "apiVersion": "v1"})
    read("openshift", 44.0 + 552.0 * k, "watch",
         {"resource": "imagestreams", "namespace": "openshift", "apiGroup": "image.openshift.io", "apiVersion": "v1"})

for log, path in (("kube", "samples-removal-hang.kube-apiserver.audit.log"),
                  ("openshift", "samples-removal-hang.openshift-apiserver.audit.log")):
    # An apiserver writes a line when the request completes; lines of
    # concurrent requests land a little out of stageTimestamp order.
    lines = sorted((p for p in LOGS[log] if log != "kube" or p[0] >= KUBE_LOG_START), key=lambda p: p[0])
    for i in range(5, len(lines) - 1, 37):
        lines[i], lines[i + 1] = lines[i + 1], lines[i]
    with open(os.path.join(HERE, path), "w") as out:
        for _, ev in lines:
            out.write(json.dumps(ev, separators=(",", ":")) + "\n")
    print(f"wrote {path}: {len(lines)} lines")
