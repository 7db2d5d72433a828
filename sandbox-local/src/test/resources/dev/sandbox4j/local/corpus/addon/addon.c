#include <node_api.h>
static napi_value Answer(napi_env env, napi_callback_info info) { napi_value v; napi_create_int32(env, 42, &v); return v; }
static napi_value Init(napi_env env, napi_value exports) { napi_value f; napi_create_function(env, "answer", NAPI_AUTO_LENGTH, Answer, NULL, &f); napi_set_named_property(env, exports, "answer", f); return exports; }
NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
