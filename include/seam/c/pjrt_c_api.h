/* seam's plugin ABI: a C function table in the style of the PJRT C API.
 *
 * A plugin is a shared library exporting exactly one symbol:
 *
 *     const PJRT_Api* GetPjrtApi(void);
 *
 * The returned table is owned by the plugin and lives until the process exits (the
 * framework never unloads a plugin).
 *
 * Conventions, for every function in the table:
 *   - The signature is `PJRT_Error* PJRT_Object_Verb(PJRT_Object_Verb_Args* args)`.
 *   - A null return is success. A non-null PJRT_Error is owned by the caller, who frees it
 *     with PJRT_Error_Destroy.
 *   - Every Args struct opens with `struct_size` (the caller sets it to the matching
 *     PJRT_Xxx_STRUCT_SIZE) and `extension_start` (reserved: set it to NULL).
 *     A struct's size is the end of its last field, so a struct can grow at its end: a
 *     callee accepts any size >= the size it needs, answers a smaller one with
 *     INVALID_ARGUMENT, and reads fields added later only when the caller's size covers
 *     them.
 *   - Fields marked `// out` are written by the callee; all others are read only.
 *   - Pointers the callee receives are borrowed for the duration of the call unless a
 *     field says otherwise. Pointers the callee returns live as long as the field says.
 *   - New functions are appended at the end of PJRT_Api; nothing is ever reordered.
 *   - No slot is NULL: a plugin answers a function it does not support with
 *     PJRT_Error_Code_UNIMPLEMENTED and a message naming the function.
 *
 * The memory layout is seam's own and differs from other PJRT implementations, so its
 * major version (PJRT_API_MAJOR) differs too: a framework refuses a plugin of another
 * major version before calling any of its functions. docs/abi.md has the contract in prose.
 */
#ifndef SEAM_C_PJRT_C_API_H_
#define SEAM_C_PJRT_C_API_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this header. MAJOR changes when the layout changes incompatibly;
 * MINOR grows with every appended function or field (docs/abi.md keeps the changelog).
 *
 * The handshake (framework side, at plugin load): the plugin's major must equal
 * PJRT_API_MAJOR; by default its minor must be >= PJRT_API_MIN_MINOR, with no upper bound
 * (a newer plugin is accepted: struct sizes tell each side what the other knows). With
 * ENABLE_PJRT_COMPATIBILITY set to a false value, or to anything that is not a boolean,
 * both numbers must match exactly. */
#define PJRT_API_MAJOR 1
/* 1.3: PJRT_Device_MemoryStats; 1.4: the profiler extension; 1.5: ranged reads and
 * streamed uploads (PJRT_Buffer_CopyRawToHost, the host-to-device transfer manager). */
#define PJRT_API_MINOR 5
/* The oldest minor the framework loads: every slot up to this version may be called. */
#define PJRT_API_MIN_MINOR 1

/* Size of a struct up to and including `last_field`. */
#define PJRT_STRUCT_SIZE(struct_type, last_field) \
  (offsetof(struct_type, last_field) + sizeof(((struct_type*)0)->last_field))

/* Defines <sname>_STRUCT_SIZE, the size a caller puts in `struct_size`: the end of the
 * struct's last field. tests/unit/abi_layout_test.cc checks the values against a golden
 * list, so a field moved or added without care fails a test. */
#define PJRT_DEFINE_STRUCT_TRAITS(sname, last_field) \
  enum { sname##_STRUCT_SIZE = PJRT_STRUCT_SIZE(sname, last_field) }

/* ------------------------------------------------------------------------------------
 * Extensions and version
 * ---------------------------------------------------------------------------------- */

/* Head of an optional chain of extension structs. In Args structs it is reserved (NULL).
 * In PJRT_Api it starts the plugin's chain of extensions (since 1.4): each link is an
 * extension struct that opens with this base; `type` says which (PJRT_Extension_Type),
 * `struct_size` is the size of the whole extension struct (it grows at its end like an
 * Args struct). A framework skips types it does not know and reads the chain only when the
 * plugin's minor is at least 4. */
typedef struct PJRT_Extension_Base {
  size_t struct_size;
  int type;
  struct PJRT_Extension_Base* next; /* borrowed; NULL ends the chain */
} PJRT_Extension_Base;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Extension_Base, next);

typedef struct PJRT_Api_Version {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  int major_version; /* the plugin's PJRT_API_MAJOR */
  int minor_version; /* the plugin's PJRT_API_MINOR */
} PJRT_Api_Version;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Api_Version, minor_version);

/* Opaque objects. Each is created by the plugin; who destroys it is said where it is
 * returned. */
typedef struct PJRT_Error PJRT_Error;
typedef struct PJRT_Client PJRT_Client;
typedef struct PJRT_Device PJRT_Device;
typedef struct PJRT_DeviceDescription PJRT_DeviceDescription;
typedef struct PJRT_Buffer PJRT_Buffer;
typedef struct PJRT_Event PJRT_Event;
typedef struct PJRT_LoadedExecutable PJRT_LoadedExecutable;
typedef struct PJRT_AsyncHostToDeviceTransferManager PJRT_AsyncHostToDeviceTransferManager;

/* ------------------------------------------------------------------------------------
 * Errors
 * ---------------------------------------------------------------------------------- */

/* The absl / gRPC canonical codes, same numbers. */
typedef enum {
  PJRT_Error_Code_CANCELLED = 1,
  PJRT_Error_Code_UNKNOWN = 2,
  PJRT_Error_Code_INVALID_ARGUMENT = 3,
  PJRT_Error_Code_DEADLINE_EXCEEDED = 4,
  PJRT_Error_Code_NOT_FOUND = 5,
  PJRT_Error_Code_ALREADY_EXISTS = 6,
  PJRT_Error_Code_PERMISSION_DENIED = 7,
  PJRT_Error_Code_RESOURCE_EXHAUSTED = 8,
  PJRT_Error_Code_FAILED_PRECONDITION = 9,
  PJRT_Error_Code_ABORTED = 10,
  PJRT_Error_Code_OUT_OF_RANGE = 11,
  PJRT_Error_Code_UNIMPLEMENTED = 12,
  PJRT_Error_Code_INTERNAL = 13,
  PJRT_Error_Code_UNAVAILABLE = 14,
  PJRT_Error_Code_DATA_LOSS = 15,
  PJRT_Error_Code_UNAUTHENTICATED = 16
} PJRT_Error_Code;

typedef struct PJRT_Error_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Error* error; /* owned by the caller; freed by this call; NULL is allowed */
} PJRT_Error_Destroy_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Error_Destroy_Args, error);
/* Frees an error. This function has no way to report a failure and returns nothing. */
typedef void PJRT_Error_Destroy(PJRT_Error_Destroy_Args* args);

typedef struct PJRT_Error_Message_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_Error* error;
  const char* message; /* out; owned by `error`, valid until it is destroyed; not
                          NUL-terminated in general: use message_size */
  size_t message_size; /* out */
} PJRT_Error_Message_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Error_Message_Args, message_size);
/* Reads an error's message. Returns nothing. */
typedef void PJRT_Error_Message(PJRT_Error_Message_Args* args);

typedef struct PJRT_Error_GetCode_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_Error* error;
  PJRT_Error_Code code; /* out */
} PJRT_Error_GetCode_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Error_GetCode_Args, code);
typedef PJRT_Error* PJRT_Error_GetCode(PJRT_Error_GetCode_Args* args);

/* ------------------------------------------------------------------------------------
 * Named values: client-create options, compile options, plugin attributes
 * ---------------------------------------------------------------------------------- */

typedef enum {
  PJRT_NamedValue_kString = 0,
  PJRT_NamedValue_kInt64 = 1,
  PJRT_NamedValue_kInt64List = 2,
  PJRT_NamedValue_kFloat = 3,
  PJRT_NamedValue_kBool = 4
} PJRT_NamedValue_Type;

typedef struct PJRT_NamedValue {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const char* name; /* not NUL-terminated: use name_size */
  size_t name_size;
  PJRT_NamedValue_Type type;
  union {
    const char* string_value;         /* kString: value_size bytes */
    int64_t int64_value;              /* kInt64 */
    const int64_t* int64_array_value; /* kInt64List: value_size entries, borrowed */
    float float_value;                /* kFloat */
    bool bool_value;                  /* kBool */
  } value;                            /* named, not anonymous: anonymous unions are not C99 */
  size_t value_size;                  /* kString: byte count; kInt64List: entry count; others: 1 */
} PJRT_NamedValue;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_NamedValue, value_size);

/* ------------------------------------------------------------------------------------
 * Plugin
 * ---------------------------------------------------------------------------------- */

typedef struct PJRT_Plugin_Initialize_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
} PJRT_Plugin_Initialize_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Plugin_Initialize_Args, extension_start);
/* One-time set-up, called by the framework after the version handshake and before any
 * client is created. */
typedef PJRT_Error* PJRT_Plugin_Initialize(PJRT_Plugin_Initialize_Args* args);

typedef struct PJRT_Plugin_Attributes_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_NamedValue* attributes; /* out; owned by the plugin, valid for the process's
                                        life; names are unique */
  size_t num_attributes;             /* out */
} PJRT_Plugin_Attributes_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Plugin_Attributes_Args, num_attributes);
typedef PJRT_Error* PJRT_Plugin_Attributes(PJRT_Plugin_Attributes_Args* args);

/* ------------------------------------------------------------------------------------
 * Events: completion of asynchronous work
 * ---------------------------------------------------------------------------------- */

typedef struct PJRT_Event_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Event* event; /* owned by the caller; freed by this call (the work it tracks goes
                        on; callbacks already registered still run) */
} PJRT_Event_Destroy_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Event_Destroy_Args, event);
typedef PJRT_Error* PJRT_Event_Destroy(PJRT_Event_Destroy_Args* args);

typedef struct PJRT_Event_IsReady_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Event* event;
  bool is_ready; /* out: true once the work has finished, successfully or not */
} PJRT_Event_IsReady_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Event_IsReady_Args, is_ready);
typedef PJRT_Error* PJRT_Event_IsReady(PJRT_Event_IsReady_Args* args);

typedef struct PJRT_Event_Error_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Event* event;
} PJRT_Event_Error_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Event_Error_Args, event);
/* For a ready event: returns the error the work ended with (NULL when it succeeded).
 * For an event that is not ready: FAILED_PRECONDITION. */
typedef PJRT_Error* PJRT_Event_Error(PJRT_Event_Error_Args* args);

typedef struct PJRT_Event_Await_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Event* event;
} PJRT_Event_Await_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Event_Await_Args, event);
/* Blocks until the event is ready; returns the error the work ended with, or NULL. */
typedef PJRT_Error* PJRT_Event_Await(PJRT_Event_Await_Args* args);

/* `error` is owned by the callback (NULL on success); the callback must destroy it. The
 * callback may run on any thread, or inside PJRT_Event_OnReady when the event is
 * already ready. It must not block on other work of the same device. */
typedef void (*PJRT_Event_OnReadyCallback)(PJRT_Error* error, void* user_arg);

typedef struct PJRT_Event_OnReady_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Event* event;
  PJRT_Event_OnReadyCallback callback; /* called exactly once */
  void* user_arg;                      /* passed to callback as is */
} PJRT_Event_OnReady_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Event_OnReady_Args, user_arg);
typedef PJRT_Error* PJRT_Event_OnReady(PJRT_Event_OnReady_Args* args);

/* ------------------------------------------------------------------------------------
 * Client
 * ---------------------------------------------------------------------------------- */

/* The job's key-value store, for a plugin whose processes must find each other (a
 * multi-process job: the framework's coordinator serves it). Keys and values are bytes;
 * every key the plugin passes is its own (the framework adds the job's prefix). Each
 * callback returns NULL on success, or an error it made with `callback_error` (the
 * plugin's own error factory, so that the plugin frees it with PJRT_Error_Destroy). The
 * callbacks may be called from any thread, as long as the client lives. (1.2) */
typedef PJRT_Error* PJRT_CallbackError(PJRT_Error_Code code, const char* message,
                                       size_t message_size);

typedef struct PJRT_KeyValueGetCallback_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const char* key; /* borrowed for the call */
  size_t key_size;
  int64_t timeout_in_ms; /* waits at most this long for the key: DEADLINE_EXCEEDED after */
  PJRT_CallbackError* callback_error;
  void* user_arg;                     /* the kv_user_arg given to PJRT_Client_Create */
  char* value;                        /* out; owned by the plugin, freed with value_deleter */
  size_t value_size;                  /* out */
  void (*value_deleter)(char* value); /* out */
} PJRT_KeyValueGetCallback_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_KeyValueGetCallback_Args, value_deleter);
/* Blocks until `key` exists (or the timeout passes), then returns its value. */
typedef PJRT_Error* (*PJRT_KeyValueGetCallback)(PJRT_KeyValueGetCallback_Args* args);

typedef struct PJRT_KeyValueTryGetCallback_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const char* key; /* borrowed for the call */
  size_t key_size;
  PJRT_CallbackError* callback_error;
  void* user_arg;
  char* value;                        /* out; freed with value_deleter */
  size_t value_size;                  /* out */
  void (*value_deleter)(char* value); /* out */
} PJRT_KeyValueTryGetCallback_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_KeyValueTryGetCallback_Args, value_deleter);
/* The value of `key` now, or NOT_FOUND without waiting. */
typedef PJRT_Error* (*PJRT_KeyValueTryGetCallback)(PJRT_KeyValueTryGetCallback_Args* args);

typedef struct PJRT_KeyValuePutCallback_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const char* key; /* borrowed for the call */
  size_t key_size;
  const char* value; /* borrowed for the call */
  size_t value_size;
  PJRT_CallbackError* callback_error;
  void* user_arg;
} PJRT_KeyValuePutCallback_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_KeyValuePutCallback_Args, user_arg);
/* Sets `key` (a key is written once per job; writing it again is ALREADY_EXISTS). */
typedef PJRT_Error* (*PJRT_KeyValuePutCallback)(PJRT_KeyValuePutCallback_Args* args);

typedef struct PJRT_Client_Create_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_NamedValue* create_options; /* borrowed for the call; unknown names are an
                                            INVALID_ARGUMENT error naming the option */
  size_t num_options;
  PJRT_Client* client; /* out; owned by the caller, freed with PJRT_Client_Destroy */
  /* 1.2: the job's key-value store, all NULL in a single-process job. Read only when
   * struct_size covers them (a 1.1 caller passes PJRT_Client_Create_Args_STRUCT_SIZE_1_1).
   * The callbacks and user arg stay valid until PJRT_Client_Destroy. */
  void* kv_user_arg;
  PJRT_KeyValueGetCallback kv_get;
  PJRT_KeyValueTryGetCallback kv_try_get;
  PJRT_KeyValuePutCallback kv_put;
} PJRT_Client_Create_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_Create_Args, kv_put);
/* The struct as minor 1 defined it (up to `client`): the least a plugin may accept. */
enum {
  PJRT_Client_Create_Args_STRUCT_SIZE_1_1 = PJRT_STRUCT_SIZE(PJRT_Client_Create_Args, client)
};
typedef PJRT_Error* PJRT_Client_Create(PJRT_Client_Create_Args* args);

typedef struct PJRT_Client_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client; /* freed by this call; its devices go with it. Buffers and
                          executables of the client must be destroyed first. */
} PJRT_Client_Destroy_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_Destroy_Args, client);
typedef PJRT_Error* PJRT_Client_Destroy(PJRT_Client_Destroy_Args* args);

typedef struct PJRT_Client_PlatformName_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  const char* platform_name; /* out; owned by the client, valid while it lives */
  size_t platform_name_size; /* out */
} PJRT_Client_PlatformName_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_PlatformName_Args, platform_name_size);
typedef PJRT_Error* PJRT_Client_PlatformName(PJRT_Client_PlatformName_Args* args);

typedef struct PJRT_Client_ProcessIndex_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  int process_index; /* out: this process's index among the processes of a job */
} PJRT_Client_ProcessIndex_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_ProcessIndex_Args, process_index);
typedef PJRT_Error* PJRT_Client_ProcessIndex(PJRT_Client_ProcessIndex_Args* args);

typedef struct PJRT_Client_Devices_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  PJRT_Device* const* devices; /* out; array and devices owned by the client, valid
                                  while it lives */
  size_t num_devices;          /* out */
} PJRT_Client_Devices_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_Devices_Args, num_devices);
/* Every device of the job, addressable or not. */
typedef PJRT_Error* PJRT_Client_Devices(PJRT_Client_Devices_Args* args);

typedef struct PJRT_Client_AddressableDevices_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  PJRT_Device* const* addressable_devices; /* out; owned by the client, valid while it
                                              lives */
  size_t num_addressable_devices;          /* out */
} PJRT_Client_AddressableDevices_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_AddressableDevices_Args, num_addressable_devices);
/* The devices this process can put buffers on and run programs on. */
typedef PJRT_Error* PJRT_Client_AddressableDevices(PJRT_Client_AddressableDevices_Args* args);

typedef struct PJRT_Client_LookupDevice_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  int id;              /* a device id, as PJRT_DeviceDescription_Id reports it */
  PJRT_Device* device; /* out; owned by the client */
} PJRT_Client_LookupDevice_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_LookupDevice_Args, device);
/* An id no device has (negative or out of range) is INVALID_ARGUMENT naming the id. */
typedef PJRT_Error* PJRT_Client_LookupDevice(PJRT_Client_LookupDevice_Args* args);

/* A program to compile: seam plugins accept format "seam-ir" (the text of docs/ir.md). */
typedef struct PJRT_Program {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const char* code; /* code_size bytes, borrowed for the call */
  size_t code_size;
  const char* format; /* format_size bytes; an unknown format is INVALID_ARGUMENT
                         "Unknown program format '<format>'." */
  size_t format_size;
} PJRT_Program;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Program, format_size);

typedef struct PJRT_Client_Compile_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  const PJRT_Program* program;
  const PJRT_NamedValue* compile_options; /* borrowed for the call; an unknown name is
                                             INVALID_ARGUMENT naming it */
  size_t num_compile_options;
  PJRT_LoadedExecutable* executable; /* out; owned by the caller, freed with
                                        PJRT_LoadedExecutable_Destroy; loaded on every
                                        addressable device */
} PJRT_Client_Compile_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_Compile_Args, executable);
/* Compiles and loads in one step. A malformed program is INVALID_ARGUMENT with the
 * parser's or verifier's message. */
typedef PJRT_Error* PJRT_Client_Compile(PJRT_Client_Compile_Args* args);

/* ------------------------------------------------------------------------------------
 * Buffers: device memory
 * ---------------------------------------------------------------------------------- */

typedef enum {
  PJRT_Buffer_Type_INVALID = 0,
  PJRT_Buffer_Type_PRED = 1,
  PJRT_Buffer_Type_S8 = 2,
  PJRT_Buffer_Type_S16 = 3,
  PJRT_Buffer_Type_S32 = 4,
  PJRT_Buffer_Type_S64 = 5,
  PJRT_Buffer_Type_U8 = 6,
  PJRT_Buffer_Type_U16 = 7,
  PJRT_Buffer_Type_U32 = 8,
  PJRT_Buffer_Type_U64 = 9,
  PJRT_Buffer_Type_F16 = 10,
  PJRT_Buffer_Type_F32 = 11,
  PJRT_Buffer_Type_F64 = 12,
  PJRT_Buffer_Type_BF16 = 13
} PJRT_Buffer_Type;

/* How long the plugin may read the host memory passed to BufferFromHostBuffer. */
typedef enum {
  /* The data is read (copied) before the call returns; the caller may reuse it at once. */
  PJRT_HostBufferSemantics_kImmutableOnlyDuringCall = 0,
  /* The caller keeps the data unchanged until done_with_host_buffer is ready. */
  PJRT_HostBufferSemantics_kImmutableUntilTransferCompletes = 1,
  /* The caller keeps the data unchanged for the buffer's whole life; the plugin may use
   * it in place. */
  PJRT_HostBufferSemantics_kImmutableZeroCopy = 2
} PJRT_HostBufferSemantics;

typedef struct PJRT_Client_BufferFromHostBuffer_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  const void* data; /* dense row-major elements; see host_buffer_semantics for how long
                       it is read. May be NULL when the shape has no elements. */
  PJRT_Buffer_Type type;
  const int64_t* dims; /* num_dims entries, borrowed for the call */
  size_t num_dims;
  const int64_t* byte_strides; /* reserved: must be NULL (dense row-major) */
  size_t num_byte_strides;     /* reserved: must be 0 */
  PJRT_HostBufferSemantics host_buffer_semantics;
  PJRT_Device* device;               /* the destination, an addressable device */
  PJRT_Event* done_with_host_buffer; /* out; owned by the caller (PJRT_Event_Destroy);
                                        ready once `data` is no longer read */
  PJRT_Buffer* buffer;               /* out; owned by the caller (PJRT_Buffer_Destroy) */
} PJRT_Client_BufferFromHostBuffer_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_BufferFromHostBuffer_Args, buffer);
typedef PJRT_Error* PJRT_Client_BufferFromHostBuffer(PJRT_Client_BufferFromHostBuffer_Args* args);

typedef struct PJRT_Buffer_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer; /* freed by this call; memory still used by pending work is
                          released when that work finishes */
} PJRT_Buffer_Destroy_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_Destroy_Args, buffer);
typedef PJRT_Error* PJRT_Buffer_Destroy(PJRT_Buffer_Destroy_Args* args);

typedef struct PJRT_Buffer_ElementType_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  PJRT_Buffer_Type type; /* out */
} PJRT_Buffer_ElementType_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_ElementType_Args, type);
typedef PJRT_Error* PJRT_Buffer_ElementType(PJRT_Buffer_ElementType_Args* args);

typedef struct PJRT_Buffer_Dimensions_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  const int64_t* dims; /* out; owned by the buffer, valid while it lives */
  size_t num_dims;     /* out */
} PJRT_Buffer_Dimensions_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_Dimensions_Args, num_dims);
typedef PJRT_Error* PJRT_Buffer_Dimensions(PJRT_Buffer_Dimensions_Args* args);

typedef struct PJRT_Buffer_ToHostBuffer_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* src;
  void* dst;         /* caller's memory, written until `event` is ready; NULL = only ask
                        for the size */
  size_t dst_size;   /* in: bytes at dst; out when dst is NULL: the bytes needed */
  PJRT_Event* event; /* out (NULL when dst is NULL); owned by the caller; ready when dst
                        holds the data, or with the error that prevented it */
} PJRT_Buffer_ToHostBuffer_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_ToHostBuffer_Args, event);
/* Asynchronous: returns at once; the copy happens when the buffer is ready. */
typedef PJRT_Error* PJRT_Buffer_ToHostBuffer(PJRT_Buffer_ToHostBuffer_Args* args);

typedef struct PJRT_Buffer_ReadyEvent_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  PJRT_Event* event; /* out; owned by the caller; ready when the buffer's contents are
                        computed (or with the error that prevented it) */
} PJRT_Buffer_ReadyEvent_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_ReadyEvent_Args, event);
typedef PJRT_Error* PJRT_Buffer_ReadyEvent(PJRT_Buffer_ReadyEvent_Args* args);

typedef struct PJRT_Buffer_Delete_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
} PJRT_Buffer_Delete_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_Delete_Args, buffer);
/* Since 1.1. Releases the buffer's device memory now (runs already started that read it
 * keep it until they finish). The handle stays valid for metadata (element type,
 * dimensions, PJRT_Buffer_IsDeleted) and for PJRT_Buffer_Destroy; reading the data
 * (ToHostBuffer, ReadyEvent, OnDeviceSizeInBytes, as an execute argument) is
 * FAILED_PRECONDITION. */
typedef PJRT_Error* PJRT_Buffer_Delete(PJRT_Buffer_Delete_Args* args);

typedef struct PJRT_Buffer_IsDeleted_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  bool is_deleted; /* out */
} PJRT_Buffer_IsDeleted_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_IsDeleted_Args, is_deleted);
/* Since 1.1. */
typedef PJRT_Error* PJRT_Buffer_IsDeleted(PJRT_Buffer_IsDeleted_Args* args);

typedef struct PJRT_Buffer_OnDeviceSizeInBytes_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  size_t on_device_size_in_bytes; /* out: device memory the buffer occupies */
} PJRT_Buffer_OnDeviceSizeInBytes_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_OnDeviceSizeInBytes_Args, on_device_size_in_bytes);
/* Since 1.1. */
typedef PJRT_Error* PJRT_Buffer_OnDeviceSizeInBytes(PJRT_Buffer_OnDeviceSizeInBytes_Args* args);

/* ------------------------------------------------------------------------------------
 * Devices
 * ---------------------------------------------------------------------------------- */

typedef struct PJRT_Device_GetDescription_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Device* device;
  PJRT_DeviceDescription* device_description; /* out; owned by the device's client */
} PJRT_Device_GetDescription_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Device_GetDescription_Args, device_description);
typedef PJRT_Error* PJRT_Device_GetDescription(PJRT_Device_GetDescription_Args* args);

typedef struct PJRT_Device_IsAddressable_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Device* device;
  bool is_addressable; /* out */
} PJRT_Device_IsAddressable_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Device_IsAddressable_Args, is_addressable);
typedef PJRT_Error* PJRT_Device_IsAddressable(PJRT_Device_IsAddressable_Args* args);

typedef struct PJRT_Device_LocalHardwareId_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Device* device;
  int local_hardware_id; /* out; -1 when the device is not addressable */
} PJRT_Device_LocalHardwareId_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Device_LocalHardwareId_Args, local_hardware_id);
typedef PJRT_Error* PJRT_Device_LocalHardwareId(PJRT_Device_LocalHardwareId_Args* args);

typedef struct PJRT_DeviceDescription_Id_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_DeviceDescription* device_description;
  int id; /* out; unique among the devices of a client */
} PJRT_DeviceDescription_Id_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_DeviceDescription_Id_Args, id);
typedef PJRT_Error* PJRT_DeviceDescription_Id(PJRT_DeviceDescription_Id_Args* args);

typedef struct PJRT_DeviceDescription_ProcessIndex_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_DeviceDescription* device_description;
  int process_index; /* out */
} PJRT_DeviceDescription_ProcessIndex_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_DeviceDescription_ProcessIndex_Args, process_index);
typedef PJRT_Error* PJRT_DeviceDescription_ProcessIndex(
    PJRT_DeviceDescription_ProcessIndex_Args* args);

typedef struct PJRT_DeviceDescription_Kind_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_DeviceDescription* device_description;
  const char* device_kind; /* out; owned by the description, e.g. "cpu" */
  size_t device_kind_size; /* out */
} PJRT_DeviceDescription_Kind_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_DeviceDescription_Kind_Args, device_kind_size);
typedef PJRT_Error* PJRT_DeviceDescription_Kind(PJRT_DeviceDescription_Kind_Args* args);

typedef struct PJRT_Device_MemoryStats_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Device* device;           /* an addressable device */
  int64_t bytes_in_use;          /* out: device memory held for the device now */
  int64_t peak_bytes_in_use;     /* out: the most bytes_in_use since the client was created */
  bool peak_bytes_in_use_is_set; /* out: false when the plugin does not track the peak */
  int64_t bytes_limit;           /* out: what the plugin refuses to allocate beyond */
  bool bytes_limit_is_set;       /* out: false when the plugin sets no limit of its own */
  int64_t pool_cached_bytes;     /* out: memory the plugin keeps for reuse, not in use */
  bool pool_cached_bytes_is_set; /* out: false when the plugin keeps no such cache */
} PJRT_Device_MemoryStats_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Device_MemoryStats_Args, pool_cached_bytes_is_set);
/* Since 1.3. The device's memory figures, in bytes, read at the time of the call (each is
 * a snapshot: with work in flight the four need not be from one instant). A field whose
 * `_is_set` is false is written as 0. A plugin states in its documentation what each
 * figure counts; docs/plugins.md has the CPU plugin's. */
typedef PJRT_Error* PJRT_Device_MemoryStats(PJRT_Device_MemoryStats_Args* args);

/* ------------------------------------------------------------------------------------
 * Ranged reads and streamed uploads (1.5): a byte range of a buffer into caller memory,
 * and buffers filled piece by piece, so that a caller holding the bytes in pieces (a
 * network stream) moves each piece straight between its memory and the device.
 * ---------------------------------------------------------------------------------- */

typedef struct PJRT_Buffer_CopyRawToHost_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  void* dst;             /* caller's memory of transfer_size bytes, written until `event`
                            is ready; may be NULL when transfer_size is 0 */
  int64_t offset;        /* the first byte of the buffer's dense row-major bytes to copy */
  int64_t transfer_size; /* bytes to copy; offset + transfer_size <= the buffer's bytes */
  PJRT_Event* event;     /* out; owned by the caller; ready when dst holds the bytes, or with
                            the error that prevented it (the buffer's own error first) */
} PJRT_Buffer_CopyRawToHost_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_CopyRawToHost_Args, event);
/* Since 1.5. Asynchronous like ToHostBuffer: the copy happens once the buffer is ready. A
 * negative offset or size, a range past the buffer's end, NULL dst with a size, and a
 * deleted or donated buffer are refused at the call, naming the values. */
typedef PJRT_Error* PJRT_Buffer_CopyRawToHost(PJRT_Buffer_CopyRawToHost_Args* args);

/* The element type and dimensions of one buffer to create. */
typedef struct PJRT_ShapeSpec {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const int64_t* dims; /* num_dims entries, borrowed for the call */
  size_t num_dims;
  PJRT_Buffer_Type element_type;
} PJRT_ShapeSpec;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_ShapeSpec, element_type);

typedef struct PJRT_Client_CreateBuffersForAsyncHostToDevice_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  const PJRT_ShapeSpec* shape_specs; /* num_shape_specs entries, borrowed for the call */
  size_t num_shape_specs;
  PJRT_Device* device; /* where every buffer lives, an addressable device of the client */
  PJRT_AsyncHostToDeviceTransferManager* transfer_manager; /* out; owned by the caller,
      freed with PJRT_AsyncHostToDeviceTransferManager_Destroy */
} PJRT_Client_CreateBuffersForAsyncHostToDevice_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_CreateBuffersForAsyncHostToDevice_Args, transfer_manager);
/* Since 1.5. Allocates one buffer per shape spec on `device` now (an allocation that fails
 * is RESOURCE_EXHAUSTED naming the bytes and the shape, and nothing stays allocated); their
 * bytes arrive later through TransferData. */
typedef PJRT_Error* PJRT_Client_CreateBuffersForAsyncHostToDevice(
    PJRT_Client_CreateBuffersForAsyncHostToDevice_Args* args);

typedef struct PJRT_AsyncHostToDeviceTransferManager_TransferData_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_AsyncHostToDeviceTransferManager* transfer_manager;
  int buffer_index;      /* 0 to num_shape_specs - 1 */
  const void* data;      /* transfer_size bytes; may be NULL when transfer_size is 0 */
  int64_t offset;        /* where they go in the buffer's dense row-major bytes */
  int64_t transfer_size; /* offset + transfer_size <= the buffer's bytes */
  bool is_last_transfer; /* the buffer's last piece: it becomes ready once this lands */
  PJRT_Event* done_with_h2d_transfer; /* out; owned by the caller; ready once `data` is no
                                         longer read */
} PJRT_AsyncHostToDeviceTransferManager_TransferData_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_AsyncHostToDeviceTransferManager_TransferData_Args,
                          done_with_h2d_transfer);
/* Since 1.5. Pieces may come in any order and from any thread. A buffer becomes ready when
 * its piece marked is_last_transfer has landed (bytes no piece wrote are unspecified).
 * Refused, naming the values: an index out of range, a negative offset or size, a range
 * past the buffer's end, NULL data with a size, a piece after the buffer's last. */
typedef PJRT_Error* PJRT_AsyncHostToDeviceTransferManager_TransferData(
    PJRT_AsyncHostToDeviceTransferManager_TransferData_Args* args);

typedef struct PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_AsyncHostToDeviceTransferManager* transfer_manager;
  int buffer_index;        /* 0 to num_shape_specs - 1; each may be retrieved once */
  PJRT_Buffer* buffer_out; /* out; owned by the caller (PJRT_Buffer_Destroy); usable at
                              once (e.g. as an execute argument), ready after its last
                              transfer */
} PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args, buffer_out);
/* Since 1.5. A second retrieval of one index is FAILED_PRECONDITION naming it. */
typedef PJRT_Error* PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer(
    PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args* args);

typedef struct PJRT_AsyncHostToDeviceTransferManager_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_AsyncHostToDeviceTransferManager* transfer_manager; /* freed by this call */
} PJRT_AsyncHostToDeviceTransferManager_Destroy_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_AsyncHostToDeviceTransferManager_Destroy_Args, transfer_manager);
/* Since 1.5. A buffer whose last transfer has not come becomes ready with an error saying
 * so (runs that wait for it fail instead of waiting forever); buffers not retrieved are
 * freed. Retrieved buffers stay valid. */
typedef PJRT_Error* PJRT_AsyncHostToDeviceTransferManager_Destroy(
    PJRT_AsyncHostToDeviceTransferManager_Destroy_Args* args);

/* ------------------------------------------------------------------------------------
 * Executables
 * ---------------------------------------------------------------------------------- */

typedef struct PJRT_LoadedExecutable_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_LoadedExecutable* executable; /* freed by this call; runs already started finish */
} PJRT_LoadedExecutable_Destroy_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_LoadedExecutable_Destroy_Args, executable);
typedef PJRT_Error* PJRT_LoadedExecutable_Destroy(PJRT_LoadedExecutable_Destroy_Args* args);

typedef struct PJRT_LoadedExecutable_NumOutputs_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_LoadedExecutable* executable;
  size_t num_outputs; /* out: buffers one device's run produces */
} PJRT_LoadedExecutable_NumOutputs_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_LoadedExecutable_NumOutputs_Args, num_outputs);
typedef PJRT_Error* PJRT_LoadedExecutable_NumOutputs(PJRT_LoadedExecutable_NumOutputs_Args* args);

typedef struct PJRT_ExecuteOptions {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  int launch_id; /* identifies one launch across the devices of a job; 0 is fine */
} PJRT_ExecuteOptions;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_ExecuteOptions, launch_id);

typedef struct PJRT_LoadedExecutable_Execute_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_LoadedExecutable* executable;
  const PJRT_ExecuteOptions* options; /* may be NULL */
  /* argument_lists[d][i]: argument i of the run on device d; borrowed: the caller may
   * destroy its handles after the call (the plugin keeps the memory alive while the run
   * needs it). */
  PJRT_Buffer* const* const* argument_lists;
  size_t num_devices; /* runs, one per device: the first num_devices addressable devices,
                         or execute_device when it is set (then num_devices must be 1) */
  size_t num_args;
  /* output_lists[d]: caller-allocated arrays of num_outputs pointers; the plugin writes
   * one new buffer per output, owned by the caller. The buffers are returned before they
   * are ready: their ready events tell when. */
  PJRT_Buffer** const* output_lists;
  /* Optional (may be NULL): caller-allocated array of num_devices; the plugin writes one
   * event per run, owned by the caller, ready when the run has finished. A run's event
   * becomes ready (and its callbacks have run) before its output buffers are ready. */
  PJRT_Event** device_complete_events;
  PJRT_Device* execute_device; /* may be NULL */
} PJRT_LoadedExecutable_Execute_Args;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_LoadedExecutable_Execute_Args, execute_device);
/* Asynchronous: validates the arguments, enqueues the runs and returns. Errors found
 * while running are reported through the completion events and the output buffers.
 * Donation: where the program declares an input/output alias (IR text
 * "alias output i = parameter j"), argument j of each device is donated: when the call
 * returns OK, that argument's PJRT_Buffer is consumed (PJRT_Buffer_IsDeleted reports true;
 * reading it through ToHostBuffer, ReadyEvent or as an execute argument is
 * FAILED_PRECONDITION with a message containing "buffer was donated"; the handle must
 * still be destroyed), and output i lives in the donated device memory. Passing one buffer
 * as a donated argument and as another argument of the same run is INVALID_ARGUMENT.
 * When the call returns an error, no argument is donated. */
typedef PJRT_Error* PJRT_LoadedExecutable_Execute(PJRT_LoadedExecutable_Execute_Args* args);

/* ------------------------------------------------------------------------------------
 * Extensions (chained from PJRT_Api.extension_start)
 * ---------------------------------------------------------------------------------- */

typedef enum {
  PJRT_Extension_Type_Profiler = 1 /* 1.4: PJRT_Profiler_Extension */
} PJRT_Extension_Type;

/* Each extension's structs are in a header of its own beside this one:
 *   PJRT_Extension_Type_Profiler  seam/c/pjrt_c_api_profiler.h (1.4) */

/* ------------------------------------------------------------------------------------
 * The table. Append only.
 * ---------------------------------------------------------------------------------- */

#define PJRT_API_STRUCT_FIELD(fn_type) fn_type* fn_type

typedef struct PJRT_Api {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Api_Version pjrt_api_version;

  PJRT_API_STRUCT_FIELD(PJRT_Error_Destroy);
  PJRT_API_STRUCT_FIELD(PJRT_Error_Message);
  PJRT_API_STRUCT_FIELD(PJRT_Error_GetCode);

  PJRT_API_STRUCT_FIELD(PJRT_Plugin_Initialize);
  PJRT_API_STRUCT_FIELD(PJRT_Plugin_Attributes);

  PJRT_API_STRUCT_FIELD(PJRT_Event_Destroy);
  PJRT_API_STRUCT_FIELD(PJRT_Event_IsReady);
  PJRT_API_STRUCT_FIELD(PJRT_Event_Error);
  PJRT_API_STRUCT_FIELD(PJRT_Event_Await);
  PJRT_API_STRUCT_FIELD(PJRT_Event_OnReady);

  PJRT_API_STRUCT_FIELD(PJRT_Client_Create);
  PJRT_API_STRUCT_FIELD(PJRT_Client_Destroy);
  PJRT_API_STRUCT_FIELD(PJRT_Client_PlatformName);
  PJRT_API_STRUCT_FIELD(PJRT_Client_ProcessIndex);
  PJRT_API_STRUCT_FIELD(PJRT_Client_Devices);
  PJRT_API_STRUCT_FIELD(PJRT_Client_AddressableDevices);
  PJRT_API_STRUCT_FIELD(PJRT_Client_LookupDevice);
  PJRT_API_STRUCT_FIELD(PJRT_Client_Compile);
  PJRT_API_STRUCT_FIELD(PJRT_Client_BufferFromHostBuffer);

  PJRT_API_STRUCT_FIELD(PJRT_DeviceDescription_Id);
  PJRT_API_STRUCT_FIELD(PJRT_DeviceDescription_ProcessIndex);
  PJRT_API_STRUCT_FIELD(PJRT_DeviceDescription_Kind);

  PJRT_API_STRUCT_FIELD(PJRT_Device_GetDescription);
  PJRT_API_STRUCT_FIELD(PJRT_Device_IsAddressable);
  PJRT_API_STRUCT_FIELD(PJRT_Device_LocalHardwareId);

  PJRT_API_STRUCT_FIELD(PJRT_LoadedExecutable_Destroy);
  PJRT_API_STRUCT_FIELD(PJRT_LoadedExecutable_NumOutputs);
  PJRT_API_STRUCT_FIELD(PJRT_LoadedExecutable_Execute);

  PJRT_API_STRUCT_FIELD(PJRT_Buffer_Destroy);
  PJRT_API_STRUCT_FIELD(PJRT_Buffer_ElementType);
  PJRT_API_STRUCT_FIELD(PJRT_Buffer_Dimensions);
  PJRT_API_STRUCT_FIELD(PJRT_Buffer_ToHostBuffer);
  PJRT_API_STRUCT_FIELD(PJRT_Buffer_ReadyEvent);

  /* 1.1 */
  PJRT_API_STRUCT_FIELD(PJRT_Buffer_Delete);
  PJRT_API_STRUCT_FIELD(PJRT_Buffer_IsDeleted);
  PJRT_API_STRUCT_FIELD(PJRT_Buffer_OnDeviceSizeInBytes);

  /* 1.3 */
  PJRT_API_STRUCT_FIELD(PJRT_Device_MemoryStats);

  /* 1.5 */
  PJRT_API_STRUCT_FIELD(PJRT_Buffer_CopyRawToHost);
  PJRT_API_STRUCT_FIELD(PJRT_Client_CreateBuffersForAsyncHostToDevice);
  PJRT_API_STRUCT_FIELD(PJRT_AsyncHostToDeviceTransferManager_TransferData);
  PJRT_API_STRUCT_FIELD(PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer);
  PJRT_API_STRUCT_FIELD(PJRT_AsyncHostToDeviceTransferManager_Destroy);
} PJRT_Api;
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Api, PJRT_AsyncHostToDeviceTransferManager_Destroy);
/* The table of a 1.3 or 1.4 plugin ends here. */
enum { PJRT_Api_STRUCT_SIZE_1_4 = PJRT_STRUCT_SIZE(PJRT_Api, PJRT_Device_MemoryStats) };
/* The table of a 1.1 or 1.2 plugin ends here. */
enum { PJRT_Api_STRUCT_SIZE_1_2 = PJRT_STRUCT_SIZE(PJRT_Api, PJRT_Buffer_OnDeviceSizeInBytes) };

#undef PJRT_API_STRUCT_FIELD

/* The one symbol a plugin exports. */
typedef const PJRT_Api* (*PJRT_GetPjrtApi_Fn)(void);
#define PJRT_GET_PJRT_API_SYMBOL "GetPjrtApi"

#ifdef __cplusplus
}
#endif

#endif /* SEAM_C_PJRT_C_API_H_ */
