/* seam's header for the PJRT C API, major 0: the plugin ABI of seam.
 *
 * This is seam's own text, not a copy of upstream's file. It declares the same binary
 * interface as OpenXLA's xla/pjrt/c/pjrt_c_api.h at PJRT API version 0.94 (openxla/xla,
 * commit 0882740a8496c82a8dc8a25fadba88ca342fb0aa): every name, every field in its
 * place with its type, every enum value, the order of the function table and every
 * <Struct>_STRUCT_SIZE are upstream's, so a plugin built against upstream's header loads
 * in seam and a seam plugin loads in any PJRT framework. Comments and the order of the
 * declarations are seam's. tests/unit/pjrt_upstream_layout.tsv records upstream's layout
 * and `scripts/abi-offsets.py --compare tests/unit/pjrt_upstream_layout.tsv
 * include/seam/c/pjrt_c_api.h` checks this file against it (docs/abi-upstream.md).
 *
 * The contract, as seam reads it:
 *
 *   - A plugin is a shared library with one exported symbol,
 *         const PJRT_Api* GetPjrtApi(void);
 *     Everything else stays local (link with a version script). The table it returns
 *     belongs to the plugin and stays valid until the process ends.
 *
 *   - Every function takes one pointer to an Args struct. The caller fills the inputs,
 *     the function fills the fields marked `out`. The caller sets `struct_size` to the
 *     struct's <Struct>_STRUCT_SIZE, which is the offset of the end of the struct's last
 *     field (not sizeof: trailing padding is not counted). Structs only ever grow at the
 *     end, so the size says which fields the caller knows: the callee accepts any size
 *     at least as large as the one it needs, reads a field added later only when the
 *     caller's size covers it, and answers a size too small for what it needs with
 *     PJRT_Error_Code_INVALID_ARGUMENT. PJRT_Api follows the same rule: functions are
 *     appended at the end, never moved or removed, and a framework calls a slot only
 *     when the plugin's table size reaches it.
 *
 *   - `extension_start` heads a chain of PJRT_Extension_Base links. On PJRT_Api it lists
 *     the optional extensions the plugin offers (each identified by its `type`); in an
 *     Args struct it is NULL unless an extension says otherwise.
 *
 *   - A NULL PJRT_Error* means success. An error is allocated by the plugin and owned by
 *     whoever receives it, who must free it with PJRT_Error_Destroy (exactly once).
 *     Codes are the absl canonical status codes. No C++ exception may leave a function
 *     of the table.
 *
 *   - Handles returned by a call (clients, buffers, events, executables, ...) are owned
 *     by the caller and freed with their Destroy function. Devices, memories and device
 *     descriptions belong to their client; strings and arrays a function returns live as
 *     long as the object that returned them unless the field says otherwise. Pointers a
 *     function receives are borrowed for the duration of the call unless a field says
 *     otherwise.
 *
 *   - The version handshake (framework side, when a plugin is loaded, before any slot
 *     other than the version is used): the plugin's pjrt_api_version.major_version must
 *     equal PJRT_API_MAJOR. By default its minor may be anything from
 *     PJRT_API_MIN_MINOR (29) up, newer than this header included: struct sizes tell
 *     each side what the other knows. When the environment variable
 *     ENABLE_PJRT_COMPATIBILITY is false (false/f/no/n/0, any case) or is not a boolean
 *     at all, the minor must equal PJRT_API_MINOR exactly.
 */
#ifndef SEAM_C_PJRT_C_API_H_
#define SEAM_C_PJRT_C_API_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------------------------------
 * Version and size helpers
 * ---------------------------------------------------------------------------------- */

/* Layout generation: changes only with an incompatible change (a field moved, removed or
 * retyped). */
#define PJRT_API_MAJOR 0
/* Grows with every compatible addition (a field or function appended). */
#define PJRT_API_MINOR 94
/* seam's, not upstream's: the oldest minor seam's framework accepts by default. */
#define PJRT_API_MIN_MINOR 29

/* Bytes of `struct_type` up to and including `last_field`. */
#define PJRT_STRUCT_SIZE(struct_type, last_field) \
  (offsetof(struct_type, last_field) + sizeof(((struct_type*)0)->last_field))

/* Compile-time check that `last_field` really ends the struct (C++ and C11; a no-op for
 * C99). Only padding may follow it. */
#if defined(__cplusplus)
#define SEAM_PJRT_LAST_FIELD_CHECK(sname, last_field)                                     \
  static_assert(                                                                          \
      sizeof(struct sname) - PJRT_STRUCT_SIZE(sname, last_field) < alignof(struct sname), \
      #sname ": a field follows " #last_field);
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define SEAM_PJRT_LAST_FIELD_CHECK(sname, last_field)                                      \
  _Static_assert(                                                                          \
      sizeof(struct sname) - PJRT_STRUCT_SIZE(sname, last_field) < _Alignof(struct sname), \
      #sname ": a field follows " #last_field);
#else
#define SEAM_PJRT_LAST_FIELD_CHECK(sname, last_field)
#endif

/* Names a defined struct (`typedef struct sname sname`) and gives it its size constant
 * `sname##_STRUCT_SIZE`. Written `PJRT_DEFINE_STRUCT_TRAITS(X, last);` after the struct,
 * as upstream's extension headers do. */
#define PJRT_DEFINE_STRUCT_TRAITS(sname, last_field) \
  typedef struct sname sname;                        \
  SEAM_PJRT_LAST_FIELD_CHECK(sname, last_field)      \
  enum { sname##_STRUCT_SIZE = PJRT_STRUCT_SIZE(sname, last_field) }

/* Two structs hold an anonymous union (as upstream's do). C99 has none; GCC and Clang
 * accept one without a warning when it is marked __extension__. */
#if defined(__GNUC__) || defined(__clang__)
#define SEAM_PJRT_ANONYMOUS_UNION __extension__ union
#else
#define SEAM_PJRT_ANONYMOUS_UNION union
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------
 * Handles: types a plugin defines and the caller only points to
 * ---------------------------------------------------------------------------------- */

typedef struct PJRT_Error PJRT_Error;
typedef struct PJRT_Event PJRT_Event;
typedef struct PJRT_Client PJRT_Client;
typedef struct PJRT_Device PJRT_Device;
typedef struct PJRT_Memory PJRT_Memory;
typedef struct PJRT_DeviceDescription PJRT_DeviceDescription;
typedef struct PJRT_TopologyDescription PJRT_TopologyDescription;
typedef struct PJRT_Executable PJRT_Executable;
typedef struct PJRT_LoadedExecutable PJRT_LoadedExecutable;
typedef struct PJRT_Buffer PJRT_Buffer;
typedef struct PJRT_FulfillAliasBufferCallback PJRT_FulfillAliasBufferCallback;
typedef struct PJRT_AsyncHostToDeviceTransferManager PJRT_AsyncHostToDeviceTransferManager;
typedef struct PJRT_PhaseCompiler PJRT_PhaseCompiler;
typedef struct PJRT_Device_Attributes PJRT_Device_Attributes;
typedef struct PJRT_AsyncTrackingEvent PJRT_AsyncTrackingEvent;
typedef struct PJRT_ExecuteContext PJRT_ExecuteContext;
typedef struct PJRT_DeviceAssignmentSerialized PJRT_DeviceAssignmentSerialized;
typedef struct PJRT_CopyToDeviceStream PJRT_CopyToDeviceStream;
typedef struct PJRT_SerializedExecutable PJRT_SerializedExecutable;
typedef struct PJRT_SerializedCompileOptions PJRT_SerializedCompileOptions;
typedef struct PJRT_SerializedTopology PJRT_SerializedTopology;
/* Declared, never given a typedef. */
struct PJRT_TransferMetadata;

/* ------------------------------------------------------------------------------------
 * Extensions
 * ---------------------------------------------------------------------------------- */

/* What an extension link is. A value a framework does not know is skipped. Values of
 * seam's own extensions lie far outside this range (seam's profiler: 0x5EA00001). */
typedef enum {
  PJRT_Extension_Type_Gpu_Custom_Call = 0,
  PJRT_Extension_Type_Profiler = 1,
  PJRT_Extension_Type_Custom_Partitioner = 2,
  PJRT_Extension_Type_Stream = 3,
  PJRT_Extension_Type_Layouts = 4,
  PJRT_Extension_Type_FFI = 5,
  PJRT_Extension_Type_MemoryDescriptions = 6,
  PJRT_Extension_Type_Triton = 7,
  PJRT_Extension_Type_RawBuffer = 8,
  PJRT_Extension_Type_PhaseCompile = 9,
  PJRT_Extension_Type_Example = 10,
  PJRT_Extension_Type_Unknown = 11,
  PJRT_Extension_Type_CrossHostTransfers = 12,
  PJRT_Extension_Type_ExecutableMetadata = 13,
  PJRT_Extension_Type_Callback = 14,
  PJRT_Extension_Type_HostAllocator = 15,
  PJRT_Extension_Type_TpuTopology = 16,
  PJRT_Extension_Type_TpuExecutable = 17,
  PJRT_Extension_Type_Megascale = 18,
  PJRT_Extension_Type_Shardings = 19,
  PJRT_Extension_Type_AbiVersion = 20,
  PJRT_Extension_Type_Collectives = 21
} PJRT_Extension_Type;

/* The head every extension struct opens with. `struct_size` is the size of the whole
 * extension struct; `next` is the following link or NULL. */
struct PJRT_Extension_Base {
  size_t struct_size;
  PJRT_Extension_Type type;
  struct PJRT_Extension_Base* next;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Extension_Base, next);

/* ------------------------------------------------------------------------------------
 * The version a plugin was built with (PJRT_Api.pjrt_api_version)
 * ---------------------------------------------------------------------------------- */

struct PJRT_Api_Version {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  int major_version; /* the plugin's PJRT_API_MAJOR */
  int minor_version; /* the plugin's PJRT_API_MINOR */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Api_Version, minor_version);

/* ------------------------------------------------------------------------------------
 * Errors
 * ---------------------------------------------------------------------------------- */

/* absl's canonical codes, same numbers. */
typedef enum {
  PJRT_Error_Code_OK = 0,
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

struct PJRT_Error_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Error* error; /* may be NULL */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Error_Destroy_Args, error);
/* Frees an error. Cannot fail, so it returns nothing. */
typedef void PJRT_Error_Destroy(PJRT_Error_Destroy_Args* args);

struct PJRT_Error_Message_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_Error* error;
  const char* message; /* out: owned by `error`, not NUL-terminated */
  size_t message_size; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Error_Message_Args, message_size);
typedef void PJRT_Error_Message(PJRT_Error_Message_Args* args);

struct PJRT_Error_GetCode_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_Error* error;
  PJRT_Error_Code code; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Error_GetCode_Args, code);
typedef PJRT_Error* PJRT_Error_GetCode(PJRT_Error_GetCode_Args* args);

/* Handed by a plugin to the caller's callbacks so that they can report a failure as a
 * PJRT_Error. `message` need only live for the call; the error keeps a copy. */
typedef PJRT_Error* (*PJRT_CallbackError)(PJRT_Error_Code code, const char* message,
                                          size_t message_size);

/* ------------------------------------------------------------------------------------
 * Named values (options and attributes)
 * ---------------------------------------------------------------------------------- */

typedef enum {
  PJRT_NamedValue_kString = 0,
  PJRT_NamedValue_kInt64 = 1,
  PJRT_NamedValue_kInt64List = 2,
  PJRT_NamedValue_kFloat = 3,
  PJRT_NamedValue_kBool = 4
} PJRT_NamedValue_Type;

/* One key and a value of `type`. Strings are counted, not NUL-terminated. */
struct PJRT_NamedValue {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const char* name;
  size_t name_size;
  PJRT_NamedValue_Type type;
  SEAM_PJRT_ANONYMOUS_UNION {
    const char* string_value;
    int64_t int64_value;
    const int64_t* int64_array_value;
    float float_value;
    bool bool_value;
  };
  size_t value_size; /* bytes of a string, entries of a list, 1 for a scalar */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_NamedValue, value_size);

/* ------------------------------------------------------------------------------------
 * Plugin
 * ---------------------------------------------------------------------------------- */

struct PJRT_Plugin_Initialize_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Plugin_Initialize_Args, extension_start);
/* Called once, after the handshake and before anything else. */
typedef PJRT_Error* PJRT_Plugin_Initialize(PJRT_Plugin_Initialize_Args* args);

struct PJRT_Plugin_Attributes_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_NamedValue* attributes; /* out: live as long as the process */
  size_t num_attributes;             /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Plugin_Attributes_Args, num_attributes);
/* Facts about the plugin (versions of what it accepts, its features). */
typedef PJRT_Error* PJRT_Plugin_Attributes(PJRT_Plugin_Attributes_Args* args);

/* ------------------------------------------------------------------------------------
 * Events: completion of asynchronous work, with an error status
 * ---------------------------------------------------------------------------------- */

struct PJRT_Event_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Event* event; /* may be NULL */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Event_Destroy_Args, event);
typedef PJRT_Error* PJRT_Event_Destroy(PJRT_Event_Destroy_Args* args);

struct PJRT_Event_IsReady_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Event* event;
  bool is_ready; /* out: finished, successfully or not */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Event_IsReady_Args, is_ready);
typedef PJRT_Error* PJRT_Event_IsReady(PJRT_Event_IsReady_Args* args);

struct PJRT_Event_Error_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Event* event;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Event_Error_Args, event);
/* The status of a ready event, as a new error the caller frees (NULL: it succeeded). */
typedef PJRT_Error* PJRT_Event_Error(PJRT_Event_Error_Args* args);

struct PJRT_Event_Await_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Event* event;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Event_Await_Args, event);
/* Blocks until the event is ready and returns its status (caller frees). */
typedef PJRT_Error* PJRT_Event_Await(PJRT_Event_Await_Args* args);

/* Receives the event's status, which it owns and must free; `user_arg` stays the
 * caller's. */
typedef void (*PJRT_Event_OnReadyCallback)(PJRT_Error* error, void* user_arg);

struct PJRT_Event_OnReady_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Event* event;
  PJRT_Event_OnReadyCallback callback;
  void* user_arg; /* passed to `callback` */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Event_OnReady_Args, user_arg);
/* Runs `callback` once the event is ready (at once if it already is). */
typedef PJRT_Error* PJRT_Event_OnReady(PJRT_Event_OnReady_Args* args);

struct PJRT_Event_Create_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Event* event; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Event_Create_Args, event);
/* An event the caller completes itself with PJRT_Event_Set. */
typedef PJRT_Error* PJRT_Event_Create(PJRT_Event_Create_Args* args);

struct PJRT_Event_Set_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Event* event;          /* from PJRT_Event_Create */
  PJRT_Error_Code error_code; /* PJRT_Error_Code_OK for success */
  const char* error_message;  /* borrowed for the call */
  size_t error_message_size;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Event_Set_Args, error_message_size);
typedef PJRT_Error* PJRT_Event_Set(PJRT_Event_Set_Args* args);

/* ------------------------------------------------------------------------------------
 * The job's key-value store, offered by the caller of PJRT_Client_Create
 *
 * A multi-process client exchanges start-up data through these callbacks. They must be
 * thread-safe; keeping different plugins' keys apart is the caller's business.
 * ---------------------------------------------------------------------------------- */

/* Frees a value a get callback returned. */
typedef void (*PJRT_KeyValueGetCallback_ValueDeleter)(char* value);

struct PJRT_KeyValueGetCallback_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const char* key;
  size_t key_size;
  int timeout_in_ms;
  PJRT_CallbackError* callback_error;
  void* user_arg;
  char* value;       /* out */
  size_t value_size; /* out */
  /* out: the plugin copies `value`, then hands it to this deleter */
  PJRT_KeyValueGetCallback_ValueDeleter value_deleter_callback;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_KeyValueGetCallback_Args, value_deleter_callback);
/* Blocks until `key` has a value or the time runs out. */
typedef PJRT_Error* (*PJRT_KeyValueGetCallback)(PJRT_KeyValueGetCallback_Args* args);

typedef void (*PJRT_KeyValueTryGetCallback_ValueDeleter)(char* value);

struct PJRT_KeyValueTryGetCallback_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const char* key;
  size_t key_size;
  PJRT_CallbackError* callback_error;
  void* user_arg;
  char* value;       /* out */
  size_t value_size; /* out */
  /* out: as for the get callback */
  PJRT_KeyValueTryGetCallback_ValueDeleter value_deleter_callback;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_KeyValueTryGetCallback_Args, value_deleter_callback);
/* Like the get callback, but answers NOT_FOUND at once for a key without a value. */
typedef PJRT_Error* (*PJRT_KeyValueTryGetCallback)(PJRT_KeyValueTryGetCallback_Args* args);

struct PJRT_KeyValuePutCallback_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const char* key;
  size_t key_size;
  const char* value; /* borrowed for the call */
  size_t value_size;
  PJRT_CallbackError* callback_error;
  void* user_arg;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_KeyValuePutCallback_Args, user_arg);
typedef PJRT_Error* (*PJRT_KeyValuePutCallback)(PJRT_KeyValuePutCallback_Args* args);

/* ------------------------------------------------------------------------------------
 * Client
 * ---------------------------------------------------------------------------------- */

struct PJRT_Client_Create_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_NamedValue* create_options; /* plugin-specific options */
  size_t num_options;
  PJRT_KeyValueGetCallback kv_get_callback; /* all kv fields may be NULL */
  void* kv_get_user_arg;
  PJRT_KeyValuePutCallback kv_put_callback;
  void* kv_put_user_arg;
  PJRT_Client* client; /* out */
  PJRT_KeyValueTryGetCallback kv_try_get_callback;
  void* kv_try_get_user_arg;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_Create_Args, kv_try_get_user_arg);
typedef PJRT_Error* PJRT_Client_Create(PJRT_Client_Create_Args* args);

struct PJRT_Client_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client; /* may be NULL */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_Destroy_Args, client);
typedef PJRT_Error* PJRT_Client_Destroy(PJRT_Client_Destroy_Args* args);

struct PJRT_Client_PlatformName_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  const char* platform_name; /* out: "cpu", "gpu", ...; owned by the client */
  size_t platform_name_size; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_PlatformName_Args, platform_name_size);
typedef PJRT_Error* PJRT_Client_PlatformName(PJRT_Client_PlatformName_Args* args);

struct PJRT_Client_ProcessIndex_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  int process_index; /* out: 0 in a single-process job */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_ProcessIndex_Args, process_index);
typedef PJRT_Error* PJRT_Client_ProcessIndex(PJRT_Client_ProcessIndex_Args* args);

struct PJRT_Client_PlatformVersion_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  const char* platform_version; /* out: free text; owned by the client */
  size_t platform_version_size; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_PlatformVersion_Args, platform_version_size);
typedef PJRT_Error* PJRT_Client_PlatformVersion(PJRT_Client_PlatformVersion_Args* args);

struct PJRT_Client_TopologyDescription_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  PJRT_TopologyDescription* topology; /* out: owned by the client, not to be destroyed */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_TopologyDescription_Args, topology);
typedef PJRT_Error* PJRT_Client_TopologyDescription(PJRT_Client_TopologyDescription_Args* args);

struct PJRT_Client_Devices_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  PJRT_Device* const* devices; /* out: every device of the job, owned by the client */
  size_t num_devices;          /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_Devices_Args, num_devices);
typedef PJRT_Error* PJRT_Client_Devices(PJRT_Client_Devices_Args* args);

struct PJRT_Client_AddressableDevices_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  PJRT_Device* const* addressable_devices; /* out: the ones this process drives */
  size_t num_addressable_devices;          /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_AddressableDevices_Args, num_addressable_devices);
typedef PJRT_Error* PJRT_Client_AddressableDevices(PJRT_Client_AddressableDevices_Args* args);

struct PJRT_Client_LookupDevice_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  int id;              /* a PJRT_DeviceDescription_Id */
  PJRT_Device* device; /* out: owned by the client */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_LookupDevice_Args, device);
typedef PJRT_Error* PJRT_Client_LookupDevice(PJRT_Client_LookupDevice_Args* args);

struct PJRT_Client_LookupAddressableDevice_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  int local_hardware_id;           /* a PJRT_Device_LocalHardwareId */
  PJRT_Device* addressable_device; /* out: owned by the client */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_LookupAddressableDevice_Args, addressable_device);
typedef PJRT_Error* PJRT_Client_LookupAddressableDevice(
    PJRT_Client_LookupAddressableDevice_Args* args);

typedef enum {
  PJRT_ProcessState_kUnspecified = 0,
  PJRT_ProcessState_kUninitialized = 1,
  PJRT_ProcessState_kDisconnected = 2,
  PJRT_ProcessState_kConnected = 3,
  PJRT_ProcessState_kError = 4
} PJRT_ProcessState;

/* One process of a distributed job, as the job's coordinator sees it. */
struct PJRT_ProcessInfo {
  size_t struct_size;
  int task_id;
  uint64_t incarnation_id;
  PJRT_ProcessState state;
  int error_code;
  const char* error_message;
  size_t error_message_size;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_ProcessInfo, error_message_size);

struct PJRT_Client_UpdateGlobalProcessInfo_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  PJRT_ProcessInfo* process_infos;
  size_t num_process_infos;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_UpdateGlobalProcessInfo_Args, num_process_infos);
/* Tells the client the state of every process of the job. */
typedef PJRT_Error* PJRT_Client_UpdateGlobalProcessInfo(
    PJRT_Client_UpdateGlobalProcessInfo_Args* args);

struct PJRT_Client_AddressableMemories_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  PJRT_Memory* const* addressable_memories; /* out: owned by the client */
  size_t num_addressable_memories;          /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_AddressableMemories_Args, num_addressable_memories);
typedef PJRT_Error* PJRT_Client_AddressableMemories(PJRT_Client_AddressableMemories_Args* args);

/* A program's bytes and their format: "mlir" (StableHLO bytecode or text), "hlo" (an
 * HloModuleProto), "hlo_with_config" (an HloModuleProtoWithConfig), or a plugin's own. */
struct PJRT_Program {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  char* code; /* input or output, depending on the function */
  size_t code_size;
  const char* format; /* who owns it depends on the function */
  size_t format_size;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Program, format_size);

struct PJRT_Client_Compile_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  const PJRT_Program* program; /* borrowed for the call */
  const char* compile_options; /* a serialized xla.CompileOptionsProto */
  size_t compile_options_size;
  PJRT_LoadedExecutable* executable; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_Compile_Args, executable);
typedef PJRT_Error* PJRT_Client_Compile(PJRT_Client_Compile_Args* args);

struct PJRT_Client_DefaultDeviceAssignment_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  int num_replicas;
  int num_partitions;
  size_t default_assignment_size; /* at least num_replicas * num_partitions */
  int* default_assignment;        /* caller's array; the plugin fills its entries */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_DefaultDeviceAssignment_Args, default_assignment);
typedef PJRT_Error* PJRT_Client_DefaultDeviceAssignment(
    PJRT_Client_DefaultDeviceAssignment_Args* args);

struct PJRT_Client_DmaMap_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  void* data;
  size_t size;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_DmaMap_Args, size);
/* Registers host memory for direct transfers. */
typedef PJRT_Error* PJRT_Client_DmaMap(PJRT_Client_DmaMap_Args* args);

struct PJRT_Client_DmaUnmap_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  void* data;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_DmaUnmap_Args, data);
typedef PJRT_Error* PJRT_Client_DmaUnmap(PJRT_Client_DmaUnmap_Args* args);

/* ------------------------------------------------------------------------------------
 * Element types and layouts
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
  PJRT_Buffer_Type_BF16 = 13,
  PJRT_Buffer_Type_C64 = 14,  /* two F32: real, imaginary */
  PJRT_Buffer_Type_C128 = 15, /* two F64 */
  PJRT_Buffer_Type_F8E5M2 = 16,
  PJRT_Buffer_Type_F8E4M3FN = 17,
  PJRT_Buffer_Type_F8E4M3B11FNUZ = 18,
  PJRT_Buffer_Type_F8E5M2FNUZ = 19,
  PJRT_Buffer_Type_F8E4M3FNUZ = 20,
  PJRT_Buffer_Type_S4 = 21,
  PJRT_Buffer_Type_U4 = 22,
  PJRT_Buffer_Type_TOKEN = 23,
  PJRT_Buffer_Type_S2 = 24,
  PJRT_Buffer_Type_U2 = 25,
  PJRT_Buffer_Type_F8E4M3 = 26,
  PJRT_Buffer_Type_F8E3M4 = 27,
  PJRT_Buffer_Type_F8E8M0FNU = 28,
  PJRT_Buffer_Type_F4E2M1FN = 29,
  PJRT_Buffer_Type_S1 = 30,
  PJRT_Buffer_Type_U1 = 31
} PJRT_Buffer_Type;

/* How long the plugin may use the host bytes given to PJRT_Client_BufferFromHostBuffer. */
typedef enum {
  /* Only during the call: the plugin copies before returning. */
  PJRT_HostBufferSemantics_kImmutableOnlyDuringCall = 0,
  /* Until `done_with_host_buffer` is ready; the caller neither changes nor frees them. */
  PJRT_HostBufferSemantics_kImmutableUntilTransferCompletes = 1,
  /* For the buffer's whole life, read only; the caller keeps them alive and unchanged. */
  PJRT_HostBufferSemantics_kImmutableZeroCopy = 2,
  /* For the buffer's whole life, and the plugin may write them (donation). */
  PJRT_HostBufferSemantics_kMutableZeroCopy = 3
} PJRT_HostBufferSemantics;

typedef enum {
  PJRT_Buffer_MemoryLayout_Type_Tiled = 0,
  PJRT_Buffer_MemoryLayout_Type_Strides = 1
} PJRT_Buffer_MemoryLayout_Type;

/* A dimension order (minor_to_major lists logical dimensions, fastest-varying first) and
 * optional tiles: num_tiles tiles whose ranks are tile_dim_sizes and whose extents are
 * concatenated in tile_dims. */
struct PJRT_Buffer_MemoryLayout_Tiled {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const int64_t* minor_to_major;
  size_t minor_to_major_size;
  const int64_t* tile_dims;
  const size_t* tile_dim_sizes;
  size_t num_tiles;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_MemoryLayout_Tiled, num_tiles);

/* Byte distance between neighbours along each dimension; may be negative. */
struct PJRT_Buffer_MemoryLayout_Strides {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const int64_t* byte_strides;
  size_t num_byte_strides;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_MemoryLayout_Strides, num_byte_strides);

struct PJRT_Buffer_MemoryLayout {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  SEAM_PJRT_ANONYMOUS_UNION {
    PJRT_Buffer_MemoryLayout_Tiled tiled;
    PJRT_Buffer_MemoryLayout_Strides strides;
  };
  PJRT_Buffer_MemoryLayout_Type type; /* which member of the union is meant */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_MemoryLayout, type);

/* An array's element type and dimensions. */
struct PJRT_ShapeSpec {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const int64_t* dims;
  size_t num_dims;
  PJRT_Buffer_Type element_type;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_ShapeSpec, element_type);

/* ------------------------------------------------------------------------------------
 * Making buffers
 * ---------------------------------------------------------------------------------- */

struct PJRT_Client_BufferFromHostBuffer_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  const void* data; /* the host bytes */
  PJRT_Buffer_Type type;
  const int64_t* dims;
  size_t num_dims;
  const int64_t* byte_strides; /* none: dense, row-major */
  size_t num_byte_strides;
  PJRT_HostBufferSemantics host_buffer_semantics;
  PJRT_Device* device;
  PJRT_Memory* memory;                     /* when set, used instead of `device` */
  PJRT_Buffer_MemoryLayout* device_layout; /* NULL: dense, row-major */
  PJRT_Event* done_with_host_buffer;       /* out: `data` may be reused once ready */
  PJRT_Buffer* buffer;                     /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_BufferFromHostBuffer_Args, buffer);
/* Starts copying host bytes to a new buffer on a device. */
typedef PJRT_Error* PJRT_Client_BufferFromHostBuffer(PJRT_Client_BufferFromHostBuffer_Args* args);

struct PJRT_Client_CreateUninitializedBuffer_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  const int64_t* shape_dims;
  size_t shape_num_dims;
  PJRT_Buffer_Type shape_element_type;
  PJRT_Buffer_MemoryLayout* shape_layout;
  PJRT_Device* device;
  PJRT_Memory* memory; /* when set, used instead of `device` */
  PJRT_Buffer* buffer; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_CreateUninitializedBuffer_Args, buffer);
typedef PJRT_Error* PJRT_Client_CreateUninitializedBuffer(
    PJRT_Client_CreateUninitializedBuffer_Args* args);

struct PJRT_Client_CreateErrorBuffer_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  PJRT_Error_Code error_code;
  const char* error_message;
  size_t error_message_size;
  const int64_t* shape_dims;
  size_t shape_num_dims;
  PJRT_Buffer_Type shape_element_type;
  PJRT_Buffer_MemoryLayout* shape_layout;
  PJRT_Memory* memory;
  PJRT_Buffer* buffer; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_CreateErrorBuffer_Args, buffer);
/* A buffer without storage that carries the error; a run given it fails with it. */
typedef PJRT_Error* PJRT_Client_CreateErrorBuffer(PJRT_Client_CreateErrorBuffer_Args* args);

struct PJRT_Client_CreateAliasBuffer_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  PJRT_Memory* memory;
  const int64_t* shape_dims;
  size_t shape_num_dims;
  PJRT_Buffer_Type shape_element_type;
  PJRT_Buffer_MemoryLayout* shape_layout;
  PJRT_Buffer* alias_buffer;                                /* out */
  PJRT_FulfillAliasBufferCallback* fulfill_alias_buffer_cb; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_CreateAliasBuffer_Args, fulfill_alias_buffer_cb);
/* A buffer whose contents another buffer supplies later (PJRT_Client_FulfillAliasBuffer). */
typedef PJRT_Error* PJRT_Client_CreateAliasBuffer(PJRT_Client_CreateAliasBuffer_Args* args);

struct PJRT_Client_FulfillAliasBuffer_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  PJRT_Buffer* buffer;
  PJRT_Error_Code status_code;
  const char* error_message;
  size_t error_message_size;
  PJRT_FulfillAliasBufferCallback* fulfill_alias_buffer_cb;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_FulfillAliasBuffer_Args, fulfill_alias_buffer_cb);
typedef PJRT_Error* PJRT_Client_FulfillAliasBuffer(PJRT_Client_FulfillAliasBuffer_Args* args);

struct PJRT_Client_CreateViewOfDeviceBuffer_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  void* device_buffer_ptr; /* device memory the new buffer views, not owns */
  const int64_t* dims;
  size_t num_dims;
  PJRT_Buffer_Type element_type;
  PJRT_Buffer_MemoryLayout* layout;
  PJRT_Device* device; /* ignored when `memory` is set (older callers) */
  /* optional: called when the buffer no longer uses the memory */
  void (*on_delete_callback)(void* device_buffer_ptr, void* user_arg);
  void* on_delete_callback_arg;
  intptr_t stream;     /* optional platform stream the data is produced on */
  PJRT_Buffer* buffer; /* out */
  PJRT_Memory* memory;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_CreateViewOfDeviceBuffer_Args, memory);
typedef PJRT_Error* PJRT_Client_CreateViewOfDeviceBuffer(
    PJRT_Client_CreateViewOfDeviceBuffer_Args* args);

/* ------------------------------------------------------------------------------------
 * Streamed uploads: buffers allocated at once and filled piece by piece
 * ---------------------------------------------------------------------------------- */

struct PJRT_Client_CreateBuffersForAsyncHostToDevice_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  PJRT_ShapeSpec* shape_specs; /* one per buffer */
  size_t num_shape_specs;
  PJRT_Buffer_MemoryLayout** device_layouts; /* optional, one per buffer */
  size_t num_device_layouts;
  PJRT_Memory* memory;
  PJRT_AsyncHostToDeviceTransferManager* transfer_manager; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Client_CreateBuffersForAsyncHostToDevice_Args, transfer_manager);
typedef PJRT_Error* PJRT_Client_CreateBuffersForAsyncHostToDevice(
    PJRT_Client_CreateBuffersForAsyncHostToDevice_Args* args);

struct PJRT_AsyncHostToDeviceTransferManager_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_AsyncHostToDeviceTransferManager* transfer_manager; /* may be NULL */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_AsyncHostToDeviceTransferManager_Destroy_Args, transfer_manager);
typedef PJRT_Error* PJRT_AsyncHostToDeviceTransferManager_Destroy(
    PJRT_AsyncHostToDeviceTransferManager_Destroy_Args* args);

struct PJRT_AsyncHostToDeviceTransferManager_TransferData_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_AsyncHostToDeviceTransferManager* transfer_manager;
  int buffer_index;
  const void* data;
  int64_t offset; /* bytes into the buffer */
  int64_t transfer_size;
  bool is_last_transfer;              /* the buffer is complete after this piece */
  PJRT_Event* done_with_h2d_transfer; /* out: `data` may be reused once ready */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_AsyncHostToDeviceTransferManager_TransferData_Args,
                          done_with_h2d_transfer);
typedef PJRT_Error* PJRT_AsyncHostToDeviceTransferManager_TransferData(
    PJRT_AsyncHostToDeviceTransferManager_TransferData_Args* args);

struct PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_AsyncHostToDeviceTransferManager* transfer_manager;
  int buffer_index;
  PJRT_Buffer* buffer_out; /* out: the caller's from now on */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args, buffer_out);
typedef PJRT_Error* PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer(
    PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args* args);

struct PJRT_AsyncHostToDeviceTransferManager_Device_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_AsyncHostToDeviceTransferManager* transfer_manager;
  PJRT_Device* device_out; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_AsyncHostToDeviceTransferManager_Device_Args, device_out);
typedef PJRT_Error* PJRT_AsyncHostToDeviceTransferManager_Device(
    PJRT_AsyncHostToDeviceTransferManager_Device_Args* args);

struct PJRT_AsyncHostToDeviceTransferManager_BufferCount_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_AsyncHostToDeviceTransferManager* transfer_manager;
  size_t buffer_count; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_AsyncHostToDeviceTransferManager_BufferCount_Args, buffer_count);
typedef PJRT_Error* PJRT_AsyncHostToDeviceTransferManager_BufferCount(
    PJRT_AsyncHostToDeviceTransferManager_BufferCount_Args* args);

struct PJRT_AsyncHostToDeviceTransferManager_BufferSize_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_AsyncHostToDeviceTransferManager* transfer_manager;
  int buffer_index;
  size_t buffer_size; /* out: bytes */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_AsyncHostToDeviceTransferManager_BufferSize_Args, buffer_size);
typedef PJRT_Error* PJRT_AsyncHostToDeviceTransferManager_BufferSize(
    PJRT_AsyncHostToDeviceTransferManager_BufferSize_Args* args);

struct PJRT_AsyncHostToDeviceTransferManager_SetBufferError_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_AsyncHostToDeviceTransferManager* transfer_manager;
  int buffer_index;
  PJRT_Error_Code error_code;
  const char* error_message;
  size_t error_message_size;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_AsyncHostToDeviceTransferManager_SetBufferError_Args,
                          error_message_size);
/* Completes a buffer with an error instead of data. */
typedef PJRT_Error* PJRT_AsyncHostToDeviceTransferManager_SetBufferError(
    PJRT_AsyncHostToDeviceTransferManager_SetBufferError_Args* args);

struct PJRT_AsyncHostToDeviceTransferManager_AddMetadata_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_AsyncHostToDeviceTransferManager* transfer_manager;
  const PJRT_NamedValue* transfer_metadata;
  size_t num_metadata;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_AsyncHostToDeviceTransferManager_AddMetadata_Args, num_metadata);
typedef PJRT_Error* PJRT_AsyncHostToDeviceTransferManager_AddMetadata(
    PJRT_AsyncHostToDeviceTransferManager_AddMetadata_Args* args);

struct PJRT_AsyncHostToDeviceTransferManager_TransferLiteral_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_AsyncHostToDeviceTransferManager* transfer_manager;
  int buffer_index;
  const void* data;
  const int64_t* shape_dims; /* the shape of `data` */
  size_t shape_num_dims;
  PJRT_Buffer_Type shape_element_type;
  PJRT_Buffer_MemoryLayout* shape_layout;
  PJRT_Event* done_with_h2d_transfer; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_AsyncHostToDeviceTransferManager_TransferLiteral_Args,
                          done_with_h2d_transfer);
/* Fills a whole buffer from a host array of the given shape. */
typedef PJRT_Error* PJRT_AsyncHostToDeviceTransferManager_TransferLiteral(
    PJRT_AsyncHostToDeviceTransferManager_TransferLiteral_Args* args);

/* ------------------------------------------------------------------------------------
 * Device descriptions: what a device is, whether or not it is attached
 * ---------------------------------------------------------------------------------- */

struct PJRT_DeviceDescription_Id_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_DeviceDescription* device_description;
  int id; /* out: unique among the job's devices of this kind */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_DeviceDescription_Id_Args, id);
typedef PJRT_Error* PJRT_DeviceDescription_Id(PJRT_DeviceDescription_Id_Args* args);

struct PJRT_DeviceDescription_ProcessIndex_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_DeviceDescription* device_description;
  int process_index; /* out: the process that drives the device */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_DeviceDescription_ProcessIndex_Args, process_index);
typedef PJRT_Error* PJRT_DeviceDescription_ProcessIndex(
    PJRT_DeviceDescription_ProcessIndex_Args* args);

struct PJRT_DeviceDescription_Attributes_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_DeviceDescription* device_description;
  size_t num_attributes;             /* out */
  const PJRT_NamedValue* attributes; /* out: owned by the description */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_DeviceDescription_Attributes_Args, attributes);
typedef PJRT_Error* PJRT_DeviceDescription_Attributes(PJRT_DeviceDescription_Attributes_Args* args);

struct PJRT_DeviceDescription_Kind_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_DeviceDescription* device_description;
  const char* device_kind; /* out: the vendor's model name; owned by the description */
  size_t device_kind_size; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_DeviceDescription_Kind_Args, device_kind_size);
typedef PJRT_Error* PJRT_DeviceDescription_Kind(PJRT_DeviceDescription_Kind_Args* args);

struct PJRT_DeviceDescription_DebugString_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_DeviceDescription* device_description;
  const char* debug_string; /* out: long form, for logs */
  size_t debug_string_size; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_DeviceDescription_DebugString_Args, debug_string_size);
typedef PJRT_Error* PJRT_DeviceDescription_DebugString(
    PJRT_DeviceDescription_DebugString_Args* args);

struct PJRT_DeviceDescription_ToString_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_DeviceDescription* device_description;
  const char* to_string; /* out: short form, for users */
  size_t to_string_size; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_DeviceDescription_ToString_Args, to_string_size);
typedef PJRT_Error* PJRT_DeviceDescription_ToString(PJRT_DeviceDescription_ToString_Args* args);

/* ------------------------------------------------------------------------------------
 * Devices
 * ---------------------------------------------------------------------------------- */

struct PJRT_Device_GetDescription_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Device* device;
  PJRT_DeviceDescription* device_description; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Device_GetDescription_Args, device_description);
typedef PJRT_Error* PJRT_Device_GetDescription(PJRT_Device_GetDescription_Args* args);

struct PJRT_Device_IsAddressable_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Device* device;
  bool is_addressable; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Device_IsAddressable_Args, is_addressable);
typedef PJRT_Error* PJRT_Device_IsAddressable(PJRT_Device_IsAddressable_Args* args);

struct PJRT_Device_LocalHardwareId_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Device* device;
  int local_hardware_id; /* out: the platform's own number, -1 if none */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Device_LocalHardwareId_Args, local_hardware_id);
typedef PJRT_Error* PJRT_Device_LocalHardwareId(PJRT_Device_LocalHardwareId_Args* args);

struct PJRT_Device_AddressableMemories_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Device* device;
  PJRT_Memory* const* memories; /* out: owned by the device */
  size_t num_memories;          /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Device_AddressableMemories_Args, num_memories);
typedef PJRT_Error* PJRT_Device_AddressableMemories(PJRT_Device_AddressableMemories_Args* args);

struct PJRT_Device_DefaultMemory_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Device* device;
  PJRT_Memory* memory; /* out: owned by the device */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Device_DefaultMemory_Args, memory);
typedef PJRT_Error* PJRT_Device_DefaultMemory(PJRT_Device_DefaultMemory_Args* args);

/* All figures are out. Each is in bytes except num_allocs; each but bytes_in_use is
 * optional and comes with an _is_set flag (false: not tracked). */
struct PJRT_Device_MemoryStats_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Device* device;
  int64_t bytes_in_use; /* out */
  int64_t peak_bytes_in_use;
  bool peak_bytes_in_use_is_set;
  int64_t num_allocs;
  bool num_allocs_is_set;
  int64_t largest_alloc_size;
  bool largest_alloc_size_is_set;
  int64_t bytes_limit; /* what the user may allocate */
  bool bytes_limit_is_set;
  int64_t bytes_reserved;
  bool bytes_reserved_is_set;
  int64_t peak_bytes_reserved;
  bool peak_bytes_reserved_is_set;
  int64_t bytes_reservable_limit;
  bool bytes_reservable_limit_is_set;
  int64_t largest_free_block_bytes;
  bool largest_free_block_bytes_is_set;
  int64_t pool_bytes; /* held by the allocator, used or not */
  bool pool_bytes_is_set;
  int64_t peak_pool_bytes;
  bool peak_pool_bytes_is_set;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Device_MemoryStats_Args, peak_pool_bytes_is_set);
/* For diagnostics; may answer UNIMPLEMENTED. */
typedef PJRT_Error* PJRT_Device_MemoryStats(PJRT_Device_MemoryStats_Args* args);

struct PJRT_Device_PoisonExecution_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Device* device;
  int32_t launch_id;
  PJRT_Error_Code error_code;
  const char* error_message;
  size_t error_message_size;
  bool poisoned; /* out: a run was found and made to fail */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Device_PoisonExecution_Args, poisoned);
/* Makes the earliest unfinished run with `launch_id` on the device fail with the error. */
typedef PJRT_Error* PJRT_Device_PoisonExecution(PJRT_Device_PoisonExecution_Args* args);

struct PJRT_Device_GetAttributes_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Device* device;
  const PJRT_NamedValue* attributes;         /* out: live as long as device_attributes */
  size_t num_attributes;                     /* out */
  PJRT_Device_Attributes* device_attributes; /* out */
  void (*attributes_deleter)(PJRT_Device_Attributes* device_attributes); /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Device_GetAttributes_Args, attributes_deleter);
typedef PJRT_Error* PJRT_Device_GetAttributes(PJRT_Device_GetAttributes_Args* args);

struct PJRT_Device_CreateAsyncTrackingEvent_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Device* device;
  const char* description;
  size_t description_size;
  PJRT_AsyncTrackingEvent* event; /* out: the caller destroys it */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Device_CreateAsyncTrackingEvent_Args, event);
typedef PJRT_Error* PJRT_Device_CreateAsyncTrackingEvent(
    PJRT_Device_CreateAsyncTrackingEvent_Args* args);

struct PJRT_AsyncTrackingEvent_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_AsyncTrackingEvent* event;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_AsyncTrackingEvent_Destroy_Args, event);
typedef PJRT_Error* PJRT_AsyncTrackingEvent_Destroy(PJRT_AsyncTrackingEvent_Destroy_Args* args);

/* ------------------------------------------------------------------------------------
 * Memories (memory spaces of devices)
 * ---------------------------------------------------------------------------------- */

struct PJRT_Memory_Id_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Memory* memory;
  int id; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Memory_Id_Args, id);
typedef PJRT_Error* PJRT_Memory_Id(PJRT_Memory_Id_Args* args);

struct PJRT_Memory_Kind_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Memory* memory;
  const char* kind; /* out: owned by the memory */
  size_t kind_size; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Memory_Kind_Args, kind_size);
typedef PJRT_Error* PJRT_Memory_Kind(PJRT_Memory_Kind_Args* args);

struct PJRT_Memory_Kind_Id_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Memory* memory;
  int kind_id; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Memory_Kind_Id_Args, kind_id);
typedef PJRT_Error* PJRT_Memory_Kind_Id(PJRT_Memory_Kind_Id_Args* args);

struct PJRT_Memory_DebugString_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Memory* memory;
  const char* debug_string; /* out */
  size_t debug_string_size; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Memory_DebugString_Args, debug_string_size);
typedef PJRT_Error* PJRT_Memory_DebugString(PJRT_Memory_DebugString_Args* args);

struct PJRT_Memory_ToString_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Memory* memory;
  const char* to_string; /* out */
  size_t to_string_size; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Memory_ToString_Args, to_string_size);
typedef PJRT_Error* PJRT_Memory_ToString(PJRT_Memory_ToString_Args* args);

struct PJRT_Memory_AddressableByDevices_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Memory* memory;
  PJRT_Device* const* devices; /* out */
  size_t num_devices;          /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Memory_AddressableByDevices_Args, num_devices);
typedef PJRT_Error* PJRT_Memory_AddressableByDevices(PJRT_Memory_AddressableByDevices_Args* args);

/* ------------------------------------------------------------------------------------
 * Execute contexts: extra inputs for a run, kept alive by the caller during it
 * ---------------------------------------------------------------------------------- */

struct PJRT_ExecuteContext_Create_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_ExecuteContext* context; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_ExecuteContext_Create_Args, context);
typedef PJRT_Error* PJRT_ExecuteContext_Create(PJRT_ExecuteContext_Create_Args* args);

struct PJRT_ExecuteContext_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_ExecuteContext* context; /* may be NULL */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_ExecuteContext_Destroy_Args, context);
typedef PJRT_Error* PJRT_ExecuteContext_Destroy(PJRT_ExecuteContext_Destroy_Args* args);

/* ------------------------------------------------------------------------------------
 * Executables: compiled programs, whether or not loaded on devices
 * ---------------------------------------------------------------------------------- */

struct PJRT_Executable_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable; /* may be NULL */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_Destroy_Args, executable);
typedef PJRT_Error* PJRT_Executable_Destroy(PJRT_Executable_Destroy_Args* args);

struct PJRT_Executable_Name_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  const char* executable_name; /* out: owned by the executable */
  size_t executable_name_size; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_Name_Args, executable_name_size);
typedef PJRT_Error* PJRT_Executable_Name(PJRT_Executable_Name_Args* args);

struct PJRT_Executable_NumReplicas_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  size_t num_replicas; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_NumReplicas_Args, num_replicas);
typedef PJRT_Error* PJRT_Executable_NumReplicas(PJRT_Executable_NumReplicas_Args* args);

struct PJRT_Executable_NumPartitions_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  size_t num_partitions; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_NumPartitions_Args, num_partitions);
typedef PJRT_Error* PJRT_Executable_NumPartitions(PJRT_Executable_NumPartitions_Args* args);

struct PJRT_Executable_NumOutputs_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  size_t num_outputs; /* out: per device */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_NumOutputs_Args, num_outputs);
typedef PJRT_Error* PJRT_Executable_NumOutputs(PJRT_Executable_NumOutputs_Args* args);

struct PJRT_Executable_SizeOfGeneratedCodeInBytes_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  int64_t size_in_bytes; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_SizeOfGeneratedCodeInBytes_Args, size_in_bytes);
typedef PJRT_Error* PJRT_Executable_SizeOfGeneratedCodeInBytes(
    PJRT_Executable_SizeOfGeneratedCodeInBytes_Args* args);

struct PJRT_Executable_Fingerprint_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  const char* executable_fingerprint; /* out: same inputs, same fingerprint */
  size_t executable_fingerprint_size; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_Fingerprint_Args, executable_fingerprint_size);
typedef PJRT_Error* PJRT_Executable_Fingerprint(PJRT_Executable_Fingerprint_Args* args);

struct PJRT_Executable_GetCostAnalysis_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  size_t num_properties;             /* out */
  const PJRT_NamedValue* properties; /* out: owned by the executable */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_GetCostAnalysis_Args, properties);
/* The plugin's estimates (operation counts, bytes moved, ...). */
typedef PJRT_Error* PJRT_Executable_GetCostAnalysis(PJRT_Executable_GetCostAnalysis_Args* args);

/* Memory a run needs, in bytes; all fields but the executable are out. */
struct PJRT_Executable_GetCompiledMemoryStats_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  int64_t generated_code_size_in_bytes; /* device's default memory: */
  int64_t argument_size_in_bytes;
  int64_t output_size_in_bytes;
  int64_t alias_size_in_bytes; /* argument bytes reused for outputs */
  int64_t temp_size_in_bytes;
  int64_t host_generated_code_size_in_bytes; /* host memory: */
  int64_t host_argument_size_in_bytes;
  int64_t host_output_size_in_bytes;
  int64_t host_alias_size_in_bytes;
  int64_t host_temp_size_in_bytes;
  int64_t peak_memory_in_bytes;
  int64_t total_size_in_bytes;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_GetCompiledMemoryStats_Args, total_size_in_bytes);
typedef PJRT_Error* PJRT_Executable_GetCompiledMemoryStats(
    PJRT_Executable_GetCompiledMemoryStats_Args* args);

struct PJRT_Executable_OutputElementTypes_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  PJRT_Buffer_Type* output_types; /* out */
  size_t num_output_types;        /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_OutputElementTypes_Args, num_output_types);
typedef PJRT_Error* PJRT_Executable_OutputElementTypes(
    PJRT_Executable_OutputElementTypes_Args* args);

struct PJRT_Executable_OutputDimensions_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  size_t num_outputs;      /* out */
  const int64_t* dims;     /* out: every output's dimensions, one after another */
  const size_t* dim_sizes; /* out: each output's rank, num_outputs entries */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_OutputDimensions_Args, dim_sizes);
typedef PJRT_Error* PJRT_Executable_OutputDimensions(PJRT_Executable_OutputDimensions_Args* args);

struct PJRT_Executable_OutputMemoryKinds_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  size_t num_outputs;              /* out */
  const char* const* memory_kinds; /* out: num_outputs strings */
  const size_t* memory_kind_sizes; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_OutputMemoryKinds_Args, memory_kind_sizes);
typedef PJRT_Error* PJRT_Executable_OutputMemoryKinds(PJRT_Executable_OutputMemoryKinds_Args* args);

struct PJRT_Executable_OptimizedProgram_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  PJRT_Program* program; /* the caller's struct, filled as below */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_OptimizedProgram_Args, program);
/* The program after optimization. Call twice: with program->code NULL the plugin sets
 * code_size (and format, which it owns); then with code pointing to code_size bytes of
 * the caller's it writes the program there. */
typedef PJRT_Error* PJRT_Executable_OptimizedProgram(PJRT_Executable_OptimizedProgram_Args* args);

struct PJRT_Executable_Serialize_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_Executable* executable;
  const char* serialized_bytes;                     /* out: as long as the next lives */
  size_t serialized_bytes_size;                     /* out */
  PJRT_SerializedExecutable* serialized_executable; /* out: owns the bytes */
  /* out: frees serialized_executable; call it once */
  void (*serialized_executable_deleter)(PJRT_SerializedExecutable* exec);
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_Serialize_Args, serialized_executable_deleter);
/* Bytes that PJRT_Executable_DeserializeAndLoad of the same plugin version reads back. */
typedef PJRT_Error* PJRT_Executable_Serialize(PJRT_Executable_Serialize_Args* args);

struct PJRT_Executable_GetCompileOptions_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  const char* serialized_bytes;                              /* out: a CompileOptionsProto */
  size_t serialized_bytes_size;                              /* out */
  PJRT_SerializedCompileOptions* serialized_compile_options; /* out: owns the bytes */
  void (*serialized_compile_options_deleter)(
      PJRT_SerializedCompileOptions* options); /* out: call once */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_GetCompileOptions_Args,
                          serialized_compile_options_deleter);
typedef PJRT_Error* PJRT_Executable_GetCompileOptions(PJRT_Executable_GetCompileOptions_Args* args);

struct PJRT_Executable_DeserializeAndLoad_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  const char* serialized_executable;
  size_t serialized_executable_size;
  PJRT_LoadedExecutable* loaded_executable; /* out */
  /* optional CompileOptionsProto replacing the one stored in the executable */
  const char* overridden_serialized_compile_options;
  size_t overridden_serialized_compile_options_size;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Executable_DeserializeAndLoad_Args,
                          overridden_serialized_compile_options_size);
typedef PJRT_Error* PJRT_Executable_DeserializeAndLoad(
    PJRT_Executable_DeserializeAndLoad_Args* args);

/* ------------------------------------------------------------------------------------
 * Loaded executables: compiled for and placed on a client's devices
 * ---------------------------------------------------------------------------------- */

struct PJRT_LoadedExecutable_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_LoadedExecutable* executable; /* may be NULL */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_LoadedExecutable_Destroy_Args, executable);
/* Deletes (as PJRT_LoadedExecutable_Delete) and frees the handle. */
typedef PJRT_Error* PJRT_LoadedExecutable_Destroy(PJRT_LoadedExecutable_Destroy_Args* args);

struct PJRT_LoadedExecutable_GetExecutable_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_LoadedExecutable* loaded_executable;
  PJRT_Executable* executable; /* out: the caller destroys it */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_LoadedExecutable_GetExecutable_Args, executable);
typedef PJRT_Error* PJRT_LoadedExecutable_GetExecutable(
    PJRT_LoadedExecutable_GetExecutable_Args* args);

struct PJRT_LoadedExecutable_GetDeviceAssignment_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_LoadedExecutable* executable;
  const char* serialized_bytes;                                  /* out: a DeviceAssignmentProto */
  size_t serialized_bytes_size;                                  /* out */
  PJRT_DeviceAssignmentSerialized* serialized_device_assignment; /* out: owns the bytes */
  void (*serialized_device_assignment_deleter)(
      PJRT_DeviceAssignmentSerialized* da); /* out: call once */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_LoadedExecutable_GetDeviceAssignment_Args,
                          serialized_device_assignment_deleter);
typedef PJRT_Error* PJRT_LoadedExecutable_GetDeviceAssignment(
    PJRT_LoadedExecutable_GetDeviceAssignment_Args* args);

struct PJRT_LoadedExecutable_AddressableDevices_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_LoadedExecutable* executable;
  PJRT_Device* const* addressable_devices; /* out: where it runs */
  size_t num_addressable_devices;          /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_LoadedExecutable_AddressableDevices_Args, num_addressable_devices);
typedef PJRT_Error* PJRT_LoadedExecutable_AddressableDevices(
    PJRT_LoadedExecutable_AddressableDevices_Args* args);

struct PJRT_LoadedExecutable_Delete_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_LoadedExecutable* executable;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_LoadedExecutable_Delete_Args, executable);
/* Releases the compiled program (after its last run) but keeps the handle, which then
 * only answers IsDeleted and Destroy. */
typedef PJRT_Error* PJRT_LoadedExecutable_Delete(PJRT_LoadedExecutable_Delete_Args* args);

struct PJRT_LoadedExecutable_IsDeleted_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_LoadedExecutable* executable;
  bool is_deleted; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_LoadedExecutable_IsDeleted_Args, is_deleted);
typedef PJRT_Error* PJRT_LoadedExecutable_IsDeleted(PJRT_LoadedExecutable_IsDeleted_Args* args);

struct PJRT_LoadedExecutable_Fingerprint_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_LoadedExecutable* executable;
  const char* executable_fingerprint; /* out */
  size_t executable_fingerprint_size; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_LoadedExecutable_Fingerprint_Args, executable_fingerprint_size);
/* Deprecated upstream in favour of PJRT_Executable_Fingerprint. */
typedef PJRT_Error* PJRT_LoadedExecutable_Fingerprint(PJRT_LoadedExecutable_Fingerprint_Args* args);

/* Host callbacks for a program's send and receive operations. */
typedef struct PJRT_Chunk {
  void* data;
  size_t size;
  void (*deleter)(void* data, void* deleter_arg); /* frees `data` */
  void* deleter_arg;
} PJRT_Chunk;

/* Receives one chunk a program sends; must call chunk->deleter when done with it. */
typedef PJRT_Error* (*PJRT_SendCallback)(PJRT_Chunk* chunk, PJRT_CallbackError* callback_error,
                                         size_t total_size_in_bytes, bool done, void* user_arg);
/* Feeds a program's receive; owns `stream` and destroys it when done. */
typedef void (*PJRT_RecvCallback)(PJRT_CopyToDeviceStream* stream, void* user_arg);

struct PJRT_SendCallbackInfo {
  int64_t channel_id; /* the send operation it serves */
  void* user_arg;
  PJRT_SendCallback send_callback;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_SendCallbackInfo, send_callback);

struct PJRT_RecvCallbackInfo {
  int64_t channel_id;
  void* user_arg;
  PJRT_RecvCallback recv_callback;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_RecvCallbackInfo, recv_callback);

struct PJRT_ExecuteOptions {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  /* Per device of the run, a list of callbacks per send/recv operation. */
  PJRT_SendCallbackInfo** send_callbacks;
  PJRT_RecvCallbackInfo** recv_callbacks;
  size_t num_send_ops;
  size_t num_recv_ops;
  int launch_id; /* non-zero: ties together the parts of one multi-device launch */
  const int64_t* non_donatable_input_indices; /* arguments that must not be donated */
  size_t num_non_donatable_input_indices;
  PJRT_ExecuteContext* context;
  const char* call_location; /* NUL-terminated "file:line" of the caller, borrowed */
  size_t num_tasks;          /* task_ids[i] has incarnation incarnation_ids[i] */
  int* task_ids;
  int64_t* incarnation_ids;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_ExecuteOptions, incarnation_ids);

struct PJRT_LoadedExecutable_Execute_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_LoadedExecutable* executable;
  PJRT_ExecuteOptions* options;
  PJRT_Buffer* const* const* argument_lists; /* [num_devices][num_args] */
  size_t num_devices;
  size_t num_args;
  /* [num_devices][num outputs]: arrays the caller allocates; the plugin stores new
   * buffers in them, which the caller destroys. */
  PJRT_Buffer** const* output_lists;
  /* Optional array of num_devices slots; the plugin stores one completion event per
   * device there (not on failure), which the caller destroys. */
  PJRT_Event** device_complete_events;
  /* Optional: run only on this addressable device (num_devices must then be 1). */
  PJRT_Device* execute_device;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_LoadedExecutable_Execute_Args, execute_device);
/* Starts a run; outputs carry ready events. */
typedef PJRT_Error* PJRT_LoadedExecutable_Execute(PJRT_LoadedExecutable_Execute_Args* args);

/* ------------------------------------------------------------------------------------
 * Buffers
 * ---------------------------------------------------------------------------------- */

struct PJRT_Buffer_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer; /* may be NULL */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_Destroy_Args, buffer);
/* Deletes (as PJRT_Buffer_Delete) and frees the handle. */
typedef PJRT_Error* PJRT_Buffer_Destroy(PJRT_Buffer_Destroy_Args* args);

struct PJRT_Buffer_ElementType_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  PJRT_Buffer_Type type; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_ElementType_Args, type);
typedef PJRT_Error* PJRT_Buffer_ElementType(PJRT_Buffer_ElementType_Args* args);

struct PJRT_Buffer_Dimensions_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  const int64_t* dims; /* out: owned by the buffer */
  size_t num_dims;     /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_Dimensions_Args, num_dims);
typedef PJRT_Error* PJRT_Buffer_Dimensions(PJRT_Buffer_Dimensions_Args* args);

struct PJRT_Buffer_UnpaddedDimensions_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  const int64_t* unpadded_dims; /* out: the sizes actually used by dynamic dimensions */
  size_t num_dims;              /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_UnpaddedDimensions_Args, num_dims);
typedef PJRT_Error* PJRT_Buffer_UnpaddedDimensions(PJRT_Buffer_UnpaddedDimensions_Args* args);

struct PJRT_Buffer_DynamicDimensionIndices_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  const size_t* dynamic_dim_indices; /* out: dimensions whose size is known only at run */
  size_t num_dynamic_dims;           /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_DynamicDimensionIndices_Args, num_dynamic_dims);
typedef PJRT_Error* PJRT_Buffer_DynamicDimensionIndices(
    PJRT_Buffer_DynamicDimensionIndices_Args* args);

struct PJRT_Buffer_GetMemoryLayout_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  PJRT_Buffer_MemoryLayout layout; /* out: its arrays are owned by the buffer */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_GetMemoryLayout_Args, layout);
/* Deprecated upstream in favour of the layouts extension. */
typedef PJRT_Error* PJRT_Buffer_GetMemoryLayout(PJRT_Buffer_GetMemoryLayout_Args* args);

struct PJRT_Buffer_ToHostBuffer_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* src;
  PJRT_Buffer_MemoryLayout* host_layout; /* NULL: the buffer's own layout */
  void* dst;                             /* NULL asks only for the size */
  size_t dst_size;   /* in: bytes at dst; out (when dst is NULL): bytes needed */
  PJRT_Event* event; /* out: ready once the bytes are in dst */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_ToHostBuffer_Args, event);
typedef PJRT_Error* PJRT_Buffer_ToHostBuffer(PJRT_Buffer_ToHostBuffer_Args* args);

struct PJRT_Buffer_OnDeviceSizeInBytes_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  size_t on_device_size_in_bytes; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_OnDeviceSizeInBytes_Args, on_device_size_in_bytes);
typedef PJRT_Error* PJRT_Buffer_OnDeviceSizeInBytes(PJRT_Buffer_OnDeviceSizeInBytes_Args* args);

struct PJRT_Buffer_Delete_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_Delete_Args, buffer);
/* Releases the device memory (once pending work is done) but keeps the handle, which
 * then only answers IsDeleted and Destroy. */
typedef PJRT_Error* PJRT_Buffer_Delete(PJRT_Buffer_Delete_Args* args);

struct PJRT_Buffer_IsDeleted_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  bool is_deleted; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_IsDeleted_Args, is_deleted);
typedef PJRT_Error* PJRT_Buffer_IsDeleted(PJRT_Buffer_IsDeleted_Args* args);

struct PJRT_Buffer_CopyRawToHost_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  void* dst;
  int64_t offset; /* bytes into the buffer's storage */
  int64_t transfer_size;
  PJRT_Event* event; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_CopyRawToHost_Args, event);
/* Copies a byte range of the buffer's storage to host memory. */
typedef PJRT_Error* PJRT_Buffer_CopyRawToHost(PJRT_Buffer_CopyRawToHost_Args* args);

/* Given to future_ready_callback by the caller of PJRT_Buffer_CopyRawToHostFuture. */
struct PJRT_Buffer_CopyRawToHostFuture_Callback_Args {
  size_t struct_size;
  void* callback_data; /* as the plugin returned it */
  PJRT_Error_Code error_code;
  const char* error_message; /* only when error_code is not OK */
  size_t error_message_size;
  void* dst; /* only when error_code is OK */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_CopyRawToHostFuture_Callback_Args, dst);

struct PJRT_Buffer_CopyRawToHostFuture_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  int64_t offset;
  int64_t transfer_size;
  PJRT_Event* event;   /* out */
  void* callback_data; /* out */
  /* out: the caller calls it once the destination is known */
  void (*future_ready_callback)(PJRT_Buffer_CopyRawToHostFuture_Callback_Args* args);
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_CopyRawToHostFuture_Args, future_ready_callback);
/* Like PJRT_Buffer_CopyRawToHost, with the destination supplied later. */
typedef PJRT_Error* PJRT_Buffer_CopyRawToHostFuture(PJRT_Buffer_CopyRawToHostFuture_Args* args);

struct PJRT_Buffer_CopyToDevice_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  PJRT_Device* dst_device;
  PJRT_Buffer* dst_buffer; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_CopyToDevice_Args, dst_buffer);
typedef PJRT_Error* PJRT_Buffer_CopyToDevice(PJRT_Buffer_CopyToDevice_Args* args);

struct PJRT_Buffer_CopyToMemory_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  PJRT_Memory* dst_memory;
  PJRT_Buffer* dst_buffer; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_CopyToMemory_Args, dst_buffer);
typedef PJRT_Error* PJRT_Buffer_CopyToMemory(PJRT_Buffer_CopyToMemory_Args* args);

struct PJRT_Buffer_IsOnCpu_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  bool is_on_cpu; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_IsOnCpu_Args, is_on_cpu);
typedef PJRT_Error* PJRT_Buffer_IsOnCpu(PJRT_Buffer_IsOnCpu_Args* args);

struct PJRT_Buffer_Device_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  PJRT_Device* device; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_Device_Args, device);
typedef PJRT_Error* PJRT_Buffer_Device(PJRT_Buffer_Device_Args* args);

struct PJRT_Buffer_Memory_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  PJRT_Memory* memory; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_Memory_Args, memory);
typedef PJRT_Error* PJRT_Buffer_Memory(PJRT_Buffer_Memory_Args* args);

struct PJRT_Buffer_ReadyEvent_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  PJRT_Event* event; /* out: the caller destroys it */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_ReadyEvent_Args, event);
/* Ready when the buffer's data is, or with its error (at once for a deleted or donated
 * buffer). */
typedef PJRT_Error* PJRT_Buffer_ReadyEvent(PJRT_Buffer_ReadyEvent_Args* args);

struct PJRT_Buffer_UnsafePointer_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  uintptr_t buffer_pointer; /* out: platform-dependent address */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_UnsafePointer_Args, buffer_pointer);
typedef PJRT_Error* PJRT_Buffer_UnsafePointer(PJRT_Buffer_UnsafePointer_Args* args);

struct PJRT_Buffer_IncreaseExternalReferenceCount_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_IncreaseExternalReferenceCount_Args, buffer);
/* While the count is above zero the storage is shared outside PJRT (DLPack, NumPy) and
 * the plugin neither frees nor moves it. */
typedef PJRT_Error* PJRT_Buffer_IncreaseExternalReferenceCount(
    PJRT_Buffer_IncreaseExternalReferenceCount_Args* args);

struct PJRT_Buffer_DecreaseExternalReferenceCount_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_DecreaseExternalReferenceCount_Args, buffer);
/* Fails when the count is already zero. */
typedef PJRT_Error* PJRT_Buffer_DecreaseExternalReferenceCount(
    PJRT_Buffer_DecreaseExternalReferenceCount_Args* args);

struct PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  void* device_memory_ptr; /* out: stable only while the external count is above zero */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args, device_memory_ptr);
typedef PJRT_Error* PJRT_Buffer_OpaqueDeviceMemoryDataPointer(
    PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args* args);

/* Given to dependency_ready_callback by the caller of
 * PJRT_Buffer_DonateWithControlDependency. */
struct PJRT_Buffer_DonateWithControlDependency_Callback_Args {
  size_t struct_size;
  void* callback_data;
  PJRT_Error_Code error_code;
  const char* error_message;
  size_t error_message_size;
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_DonateWithControlDependency_Callback_Args,
                          error_message_size);

struct PJRT_Buffer_DonateWithControlDependency_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  void* callback_data; /* out */
  void (*dependency_ready_callback)(
      PJRT_Buffer_DonateWithControlDependency_Callback_Args* args); /* out */
  PJRT_Buffer* out_buffer;                                          /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Buffer_DonateWithControlDependency_Args, out_buffer);
typedef PJRT_Error* PJRT_Buffer_DonateWithControlDependency(
    PJRT_Buffer_DonateWithControlDependency_Args* args);

/* ------------------------------------------------------------------------------------
 * Streams feeding a program's receive operations
 * ---------------------------------------------------------------------------------- */

struct PJRT_CopyToDeviceStream_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_CopyToDeviceStream* stream; /* may be NULL */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_CopyToDeviceStream_Destroy_Args, stream);
typedef PJRT_Error* PJRT_CopyToDeviceStream_Destroy(PJRT_CopyToDeviceStream_Destroy_Args* args);

struct PJRT_CopyToDeviceStream_AddChunk_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_CopyToDeviceStream* stream;
  PJRT_Chunk* chunk;             /* the plugin takes it over and calls its deleter */
  PJRT_Event* transfer_complete; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_CopyToDeviceStream_AddChunk_Args, transfer_complete);
/* Sends a chunk at once; its event fails for a chunk past the total, after the end, or
 * not a multiple of the granule size. */
typedef PJRT_Error* PJRT_CopyToDeviceStream_AddChunk(PJRT_CopyToDeviceStream_AddChunk_Args* args);

struct PJRT_CopyToDeviceStream_TotalBytes_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_CopyToDeviceStream* stream;
  int64_t total_bytes; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_CopyToDeviceStream_TotalBytes_Args, total_bytes);
typedef PJRT_Error* PJRT_CopyToDeviceStream_TotalBytes(
    PJRT_CopyToDeviceStream_TotalBytes_Args* args);

struct PJRT_CopyToDeviceStream_GranuleSize_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_CopyToDeviceStream* stream;
  int64_t granule_size_in_bytes; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_CopyToDeviceStream_GranuleSize_Args, granule_size_in_bytes);
typedef PJRT_Error* PJRT_CopyToDeviceStream_GranuleSize(
    PJRT_CopyToDeviceStream_GranuleSize_Args* args);

struct PJRT_CopyToDeviceStream_CurrentBytes_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_CopyToDeviceStream* stream;
  int64_t current_bytes; /* out: sent or queued so far */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_CopyToDeviceStream_CurrentBytes_Args, current_bytes);
typedef PJRT_Error* PJRT_CopyToDeviceStream_CurrentBytes(
    PJRT_CopyToDeviceStream_CurrentBytes_Args* args);

/* ------------------------------------------------------------------------------------
 * Topologies, and compiling for one without devices
 * ---------------------------------------------------------------------------------- */

struct PJRT_TopologyDescription_Create_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const char* topology_name;
  size_t topology_name_size;
  const PJRT_NamedValue* create_options;
  size_t num_options;
  PJRT_TopologyDescription* topology; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_TopologyDescription_Create_Args, topology);
typedef PJRT_Error* PJRT_TopologyDescription_Create(PJRT_TopologyDescription_Create_Args* args);

struct PJRT_TopologyDescription_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_TopologyDescription* topology; /* may be NULL */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_TopologyDescription_Destroy_Args, topology);
typedef PJRT_Error* PJRT_TopologyDescription_Destroy(PJRT_TopologyDescription_Destroy_Args* args);

struct PJRT_TopologyDescription_PlatformVersion_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_TopologyDescription* topology;
  const char* platform_version; /* out: owned by the topology */
  size_t platform_version_size; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_TopologyDescription_PlatformVersion_Args, platform_version_size);
typedef PJRT_Error* PJRT_TopologyDescription_PlatformVersion(
    PJRT_TopologyDescription_PlatformVersion_Args* args);

struct PJRT_TopologyDescription_PlatformName_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_TopologyDescription* topology;
  const char* platform_name; /* out: owned by the topology */
  size_t platform_name_size; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_TopologyDescription_PlatformName_Args, platform_name_size);
typedef PJRT_Error* PJRT_TopologyDescription_PlatformName(
    PJRT_TopologyDescription_PlatformName_Args* args);

struct PJRT_TopologyDescription_GetDeviceDescriptions_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_TopologyDescription* topology;
  PJRT_DeviceDescription* const* descriptions; /* out: owned by the topology */
  size_t num_descriptions;                     /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_TopologyDescription_GetDeviceDescriptions_Args, num_descriptions);
/* Every device of the topology, in an order that stays the same within a process. */
typedef PJRT_Error* PJRT_TopologyDescription_GetDeviceDescriptions(
    PJRT_TopologyDescription_GetDeviceDescriptions_Args* args);

struct PJRT_TopologyDescription_Serialize_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_TopologyDescription* topology;
  const char* serialized_bytes;                 /* out */
  size_t serialized_bytes_size;                 /* out */
  PJRT_SerializedTopology* serialized_topology; /* out: owns the bytes */
  void (*serialized_topology_deleter)(
      PJRT_SerializedTopology* serialized_topology); /* out: call once */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_TopologyDescription_Serialize_Args, serialized_topology_deleter);
typedef PJRT_Error* PJRT_TopologyDescription_Serialize(
    PJRT_TopologyDescription_Serialize_Args* args);

struct PJRT_TopologyDescription_Deserialize_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const char* serialized_topology;
  size_t serialized_topology_size;
  PJRT_TopologyDescription* topology; /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_TopologyDescription_Deserialize_Args, topology);
typedef PJRT_Error* PJRT_TopologyDescription_Deserialize(
    PJRT_TopologyDescription_Deserialize_Args* args);

struct PJRT_TopologyDescription_Attributes_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_TopologyDescription* topology;
  const PJRT_NamedValue* attributes; /* out: owned by the topology */
  size_t num_attributes;             /* out */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_TopologyDescription_Attributes_Args, num_attributes);
typedef PJRT_Error* PJRT_TopologyDescription_Attributes(
    PJRT_TopologyDescription_Attributes_Args* args);

struct PJRT_Compile_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_TopologyDescription* topology;
  const PJRT_Program* program;
  const char* compile_options; /* a serialized CompileOptionsProto */
  size_t compile_options_size;
  PJRT_Client* client;         /* optional */
  PJRT_Executable* executable; /* out: load it with a compatible client to run it */
};
PJRT_DEFINE_STRUCT_TRAITS(PJRT_Compile_Args, executable);
typedef PJRT_Error* PJRT_Compile(PJRT_Compile_Args* args);

/* ------------------------------------------------------------------------------------
 * The function table
 *
 * Each slot is a pointer to the function type of the same name. Slots are appended,
 * never reordered; the comments give slot numbers (counting from 0 after
 * pjrt_api_version).
 * ---------------------------------------------------------------------------------- */

/* A slot named like its type. C++ does not let a member reuse, unqualified, the name of
 * the type it is declared with (g++ -pedantic rejects it), so C++ names the type from
 * the global scope; the layout is the same. */
#ifdef __cplusplus
#define SEAM_PJRT_SLOT(fn_type) ::fn_type* fn_type
#else
#define SEAM_PJRT_SLOT(fn_type) fn_type* fn_type
#endif

typedef struct PJRT_Api {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Api_Version pjrt_api_version;

  /* 0 */
  SEAM_PJRT_SLOT(PJRT_Error_Destroy);
  SEAM_PJRT_SLOT(PJRT_Error_Message);
  SEAM_PJRT_SLOT(PJRT_Error_GetCode);
  SEAM_PJRT_SLOT(PJRT_Plugin_Initialize);
  SEAM_PJRT_SLOT(PJRT_Plugin_Attributes);
  SEAM_PJRT_SLOT(PJRT_Event_Destroy);
  SEAM_PJRT_SLOT(PJRT_Event_IsReady);
  SEAM_PJRT_SLOT(PJRT_Event_Error);
  SEAM_PJRT_SLOT(PJRT_Event_Await);
  SEAM_PJRT_SLOT(PJRT_Event_OnReady);
  /* 10 */
  SEAM_PJRT_SLOT(PJRT_Client_Create);
  SEAM_PJRT_SLOT(PJRT_Client_Destroy);
  SEAM_PJRT_SLOT(PJRT_Client_PlatformName);
  SEAM_PJRT_SLOT(PJRT_Client_ProcessIndex);
  SEAM_PJRT_SLOT(PJRT_Client_PlatformVersion);
  SEAM_PJRT_SLOT(PJRT_Client_Devices);
  SEAM_PJRT_SLOT(PJRT_Client_AddressableDevices);
  SEAM_PJRT_SLOT(PJRT_Client_LookupDevice);
  SEAM_PJRT_SLOT(PJRT_Client_LookupAddressableDevice);
  SEAM_PJRT_SLOT(PJRT_Client_AddressableMemories);
  /* 20 */
  SEAM_PJRT_SLOT(PJRT_Client_Compile);
  SEAM_PJRT_SLOT(PJRT_Client_DefaultDeviceAssignment);
  SEAM_PJRT_SLOT(PJRT_Client_BufferFromHostBuffer);
  SEAM_PJRT_SLOT(PJRT_DeviceDescription_Id);
  SEAM_PJRT_SLOT(PJRT_DeviceDescription_ProcessIndex);
  SEAM_PJRT_SLOT(PJRT_DeviceDescription_Attributes);
  SEAM_PJRT_SLOT(PJRT_DeviceDescription_Kind);
  SEAM_PJRT_SLOT(PJRT_DeviceDescription_DebugString);
  SEAM_PJRT_SLOT(PJRT_DeviceDescription_ToString);
  SEAM_PJRT_SLOT(PJRT_Device_GetDescription);
  /* 30 */
  SEAM_PJRT_SLOT(PJRT_Device_IsAddressable);
  SEAM_PJRT_SLOT(PJRT_Device_LocalHardwareId);
  SEAM_PJRT_SLOT(PJRT_Device_AddressableMemories);
  SEAM_PJRT_SLOT(PJRT_Device_DefaultMemory);
  SEAM_PJRT_SLOT(PJRT_Device_MemoryStats);
  SEAM_PJRT_SLOT(PJRT_Memory_Id);
  SEAM_PJRT_SLOT(PJRT_Memory_Kind);
  SEAM_PJRT_SLOT(PJRT_Memory_DebugString);
  SEAM_PJRT_SLOT(PJRT_Memory_ToString);
  SEAM_PJRT_SLOT(PJRT_Memory_AddressableByDevices);
  /* 40 */
  SEAM_PJRT_SLOT(PJRT_Executable_Destroy);
  SEAM_PJRT_SLOT(PJRT_Executable_Name);
  SEAM_PJRT_SLOT(PJRT_Executable_NumReplicas);
  SEAM_PJRT_SLOT(PJRT_Executable_NumPartitions);
  SEAM_PJRT_SLOT(PJRT_Executable_NumOutputs);
  SEAM_PJRT_SLOT(PJRT_Executable_SizeOfGeneratedCodeInBytes);
  SEAM_PJRT_SLOT(PJRT_Executable_GetCostAnalysis);
  SEAM_PJRT_SLOT(PJRT_Executable_OutputMemoryKinds);
  SEAM_PJRT_SLOT(PJRT_Executable_OptimizedProgram);
  SEAM_PJRT_SLOT(PJRT_Executable_Serialize);
  /* 50 */
  SEAM_PJRT_SLOT(PJRT_LoadedExecutable_Destroy);
  SEAM_PJRT_SLOT(PJRT_LoadedExecutable_GetExecutable);
  SEAM_PJRT_SLOT(PJRT_LoadedExecutable_AddressableDevices);
  SEAM_PJRT_SLOT(PJRT_LoadedExecutable_Delete);
  SEAM_PJRT_SLOT(PJRT_LoadedExecutable_IsDeleted);
  SEAM_PJRT_SLOT(PJRT_LoadedExecutable_Execute);
  SEAM_PJRT_SLOT(PJRT_Executable_DeserializeAndLoad);
  SEAM_PJRT_SLOT(PJRT_LoadedExecutable_Fingerprint);
  SEAM_PJRT_SLOT(PJRT_Buffer_Destroy);
  SEAM_PJRT_SLOT(PJRT_Buffer_ElementType);
  /* 60 */
  SEAM_PJRT_SLOT(PJRT_Buffer_Dimensions);
  SEAM_PJRT_SLOT(PJRT_Buffer_UnpaddedDimensions);
  SEAM_PJRT_SLOT(PJRT_Buffer_DynamicDimensionIndices);
  SEAM_PJRT_SLOT(PJRT_Buffer_GetMemoryLayout);
  SEAM_PJRT_SLOT(PJRT_Buffer_OnDeviceSizeInBytes);
  SEAM_PJRT_SLOT(PJRT_Buffer_Device);
  SEAM_PJRT_SLOT(PJRT_Buffer_Memory);
  SEAM_PJRT_SLOT(PJRT_Buffer_Delete);
  SEAM_PJRT_SLOT(PJRT_Buffer_IsDeleted);
  SEAM_PJRT_SLOT(PJRT_Buffer_CopyToDevice);
  /* 70 */
  SEAM_PJRT_SLOT(PJRT_Buffer_ToHostBuffer);
  SEAM_PJRT_SLOT(PJRT_Buffer_IsOnCpu);
  SEAM_PJRT_SLOT(PJRT_Buffer_ReadyEvent);
  SEAM_PJRT_SLOT(PJRT_Buffer_UnsafePointer);
  SEAM_PJRT_SLOT(PJRT_Buffer_IncreaseExternalReferenceCount);
  SEAM_PJRT_SLOT(PJRT_Buffer_DecreaseExternalReferenceCount);
  SEAM_PJRT_SLOT(PJRT_Buffer_OpaqueDeviceMemoryDataPointer);
  SEAM_PJRT_SLOT(PJRT_CopyToDeviceStream_Destroy);
  SEAM_PJRT_SLOT(PJRT_CopyToDeviceStream_AddChunk);
  SEAM_PJRT_SLOT(PJRT_CopyToDeviceStream_TotalBytes);
  /* 80 */
  SEAM_PJRT_SLOT(PJRT_CopyToDeviceStream_GranuleSize);
  SEAM_PJRT_SLOT(PJRT_CopyToDeviceStream_CurrentBytes);
  SEAM_PJRT_SLOT(PJRT_TopologyDescription_Create);
  SEAM_PJRT_SLOT(PJRT_TopologyDescription_Destroy);
  SEAM_PJRT_SLOT(PJRT_TopologyDescription_PlatformName);
  SEAM_PJRT_SLOT(PJRT_TopologyDescription_PlatformVersion);
  SEAM_PJRT_SLOT(PJRT_TopologyDescription_GetDeviceDescriptions);
  SEAM_PJRT_SLOT(PJRT_TopologyDescription_Serialize);
  SEAM_PJRT_SLOT(PJRT_TopologyDescription_Attributes);
  SEAM_PJRT_SLOT(PJRT_Compile);
  /* 90 */
  SEAM_PJRT_SLOT(PJRT_Executable_OutputElementTypes);
  SEAM_PJRT_SLOT(PJRT_Executable_OutputDimensions);
  SEAM_PJRT_SLOT(PJRT_Buffer_CopyToMemory);
  SEAM_PJRT_SLOT(PJRT_Client_CreateViewOfDeviceBuffer);
  SEAM_PJRT_SLOT(PJRT_Executable_Fingerprint);
  SEAM_PJRT_SLOT(PJRT_Client_TopologyDescription);
  SEAM_PJRT_SLOT(PJRT_Executable_GetCompiledMemoryStats);
  SEAM_PJRT_SLOT(PJRT_Memory_Kind_Id);
  SEAM_PJRT_SLOT(PJRT_ExecuteContext_Create);
  SEAM_PJRT_SLOT(PJRT_ExecuteContext_Destroy);
  /* 100 */
  SEAM_PJRT_SLOT(PJRT_Buffer_CopyRawToHost);
  SEAM_PJRT_SLOT(PJRT_AsyncHostToDeviceTransferManager_Destroy);
  SEAM_PJRT_SLOT(PJRT_AsyncHostToDeviceTransferManager_TransferData);
  SEAM_PJRT_SLOT(PJRT_Client_CreateBuffersForAsyncHostToDevice);
  SEAM_PJRT_SLOT(PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer);
  SEAM_PJRT_SLOT(PJRT_AsyncHostToDeviceTransferManager_Device);
  SEAM_PJRT_SLOT(PJRT_AsyncHostToDeviceTransferManager_BufferCount);
  SEAM_PJRT_SLOT(PJRT_AsyncHostToDeviceTransferManager_BufferSize);
  SEAM_PJRT_SLOT(PJRT_AsyncHostToDeviceTransferManager_SetBufferError);
  SEAM_PJRT_SLOT(PJRT_AsyncHostToDeviceTransferManager_AddMetadata);
  /* 110 */
  SEAM_PJRT_SLOT(PJRT_Client_DmaMap);
  SEAM_PJRT_SLOT(PJRT_Client_DmaUnmap);
  SEAM_PJRT_SLOT(PJRT_Client_CreateUninitializedBuffer);
  SEAM_PJRT_SLOT(PJRT_Client_UpdateGlobalProcessInfo);
  SEAM_PJRT_SLOT(PJRT_TopologyDescription_Deserialize);
  SEAM_PJRT_SLOT(PJRT_Client_CreateAliasBuffer);
  SEAM_PJRT_SLOT(PJRT_Client_FulfillAliasBuffer);
  SEAM_PJRT_SLOT(PJRT_LoadedExecutable_GetDeviceAssignment);
  SEAM_PJRT_SLOT(PJRT_Client_CreateErrorBuffer);
  SEAM_PJRT_SLOT(PJRT_AsyncHostToDeviceTransferManager_TransferLiteral);
  /* 120 */
  SEAM_PJRT_SLOT(PJRT_Buffer_CopyRawToHostFuture);
  SEAM_PJRT_SLOT(PJRT_Device_PoisonExecution);
  SEAM_PJRT_SLOT(PJRT_Device_CreateAsyncTrackingEvent);
  SEAM_PJRT_SLOT(PJRT_AsyncTrackingEvent_Destroy);
  SEAM_PJRT_SLOT(PJRT_Executable_GetCompileOptions);
  SEAM_PJRT_SLOT(PJRT_Buffer_DonateWithControlDependency);
  SEAM_PJRT_SLOT(PJRT_Event_Create);
  SEAM_PJRT_SLOT(PJRT_Event_Set);
  SEAM_PJRT_SLOT(PJRT_Device_GetAttributes);
} PJRT_Api;

enum { PJRT_Api_STRUCT_SIZE = PJRT_STRUCT_SIZE(PJRT_Api, PJRT_Device_GetAttributes) };

#undef SEAM_PJRT_SLOT

#ifdef __cplusplus
}
#endif

#endif /* SEAM_C_PJRT_C_API_H_ */
