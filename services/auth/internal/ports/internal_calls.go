package ports

import (
	"context"
	"encoding/base64"
	"strings"

	"connectrpc.com/connect"

	authv1 "bidradar/gen/auth/v1"
)

// GetPublicKeys implements authv1connect.AuthServiceHandler.
func (s *Server) GetPublicKeys(context.Context, *connect.Request[authv1.GetPublicKeysRequest]) (*connect.Response[authv1.GetPublicKeysResponse], error) {
	res := &authv1.GetPublicKeysResponse{}
	for _, k := range s.opts.PublicKeys() {
		res.Keys = append(res.Keys, &authv1.PublicKey{Kid: k.KID, PublicKey: base64.StdEncoding.EncodeToString(k.Key)})
	}
	return connect.NewResponse(res), nil
}

// GetUser implements authv1connect.AuthServiceHandler. It is internal:
// only other services call it (the interceptor has checked their service
// token), for any user.
func (s *Server) GetUser(ctx context.Context, req *connect.Request[authv1.GetUserRequest]) (*connect.Response[authv1.GetUserResponse], error) {
	u, err := s.app.GetUser.Handle(ctx, strings.TrimSpace(req.Msg.GetUserId()))
	if err != nil {
		return nil, rpcErr(err)
	}
	return connect.NewResponse(&authv1.GetUserResponse{User: userPB(u)}), nil
}
