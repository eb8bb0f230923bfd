package genevalogging

// Not part of ARO-RP: recon's tests/domains/aro/upstream/dump.sh copies this
// file into ARO-RP's genevalogging package at the pinned commit and runs it.
// It hands upstream's own reconcile the objects in $RECON_INPUTS and writes,
// as a JSON array to $RECON_OUTPUT, exactly the objects the reconcile passes
// to the dynamic helper's Ensure (built, owner-referenced and hashed), i.e.
// what it POSTs when they are absent.

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/sirupsen/logrus"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlfake "sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/Azure/ARO-RP/pkg/operator/controllers/base"
	"github.com/Azure/ARO-RP/pkg/util/dynamichelper"
	_ "github.com/Azure/ARO-RP/pkg/util/scheme"
)

// Records what Ensure is given; nothing else is called by this reconcile.
type capturingHelper struct {
	dynamichelper.Interface
	objs []kruntime.Object
}

func (c *capturingHelper) Ensure(ctx context.Context, objs ...kruntime.Object) error {
	c.objs = append(c.objs, objs...)
	return nil
}

func TestReconDump(t *testing.T) {
	in, out := os.Getenv("RECON_INPUTS"), os.Getenv("RECON_OUTPUT")
	if in == "" || out == "" {
		t.Skip("RECON_INPUTS and RECON_OUTPUT name the files")
	}
	text, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(text, &raws); err != nil {
		t.Fatal(err)
	}
	decode := serializer.NewCodecFactory(scheme.Scheme).UniversalDeserializer()
	var inputs []client.Object
	for _, raw := range raws {
		o, _, err := decode.Decode(raw, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, o.(client.Object))
	}
	dh := &capturingHelper{}
	r := &Reconciler{
		AROController: base.AROController{
			Log:    logrus.NewEntry(logrus.StandardLogger()),
			Client: ctrlfake.NewClientBuilder().WithObjects(inputs...).Build(),
			Name:   ControllerName,
		},
		dh: dh,
	}
	if _, err := r.Reconcile(context.Background(), ctrl.Request{}); err != nil {
		t.Fatal(err)
	}
	var objs []map[string]interface{}
	for _, o := range dh.objs {
		gvks, _, err := scheme.Scheme.ObjectKinds(o)
		if err != nil {
			t.Fatal(err)
		}
		o.GetObjectKind().SetGroupVersionKind(gvks[0])
		b, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]interface{}
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		objs = append(objs, m)
	}
	b, err := json.MarshalIndent(objs, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}
