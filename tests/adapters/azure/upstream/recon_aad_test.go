package reconaad

// Not part of ARO-RP: recon's tests/adapters/azure/upstream/aad_check.sh
// copies this file into a scratch checkout of ARO-RP at bf96a7527b and runs
// it with ARO-RP's vendored Azure SDK for Go. It asks for a token the way
// the ARO operator's service-principal check does (DefaultAzureCredential,
// the Graph scope) and prints the token's claims, or the SDK's error.

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
)

func TestReconAad(t *testing.T) {
	cred, err := azidentity.NewDefaultAzureCredential(nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tok, err := cred.GetToken(ctx, policy.TokenRequestOptions{Scopes: []string{"https://graph.microsoft.com//.default"}})
	if err != nil {
		fmt.Printf("RECON-AAD error: %s\n", strings.ReplaceAll(err.Error(), "\n", " | "))
		return
	}
	parts := strings.Split(tok.Token, ".")
	claims, _ := base64.RawURLEncoding.DecodeString(parts[1])
	fmt.Printf("RECON-AAD claims: %s\n", claims)
}
