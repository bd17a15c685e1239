/* rt_buffer.c: device buffers of a context (allocated or wrapped), uploads and
 * downloads. */
#include "patc.h"
#include "rt_internal.h"

#include <stdlib.h>

/* ---------------------------------------------------------------- buffers */

patc_status patc_buffer_alloc(patc_ctx *c, size_t bytes, patc_buffer **out)
{
    if (!c) return PATC_ERR_INVALID;
    if (!out) return rt_fail(c, PATC_ERR_INVALID, "patc_buffer_alloc: no output");
    *out = NULL;
    patc_status s = rt_need_device(c);
    if (s != PATC_OK) return s;
    patc_buffer *b = lang_calloc(1, sizeof *b);
    if (!b) return rt_fail(c, PATC_ERR_NO_MEMORY, "out of memory");
    int r = rt_driver_mem_alloc(c->drv, &b->ptr, bytes);
    if (r) {
        free(b);
        return rt_fail(c, PATC_ERR_DRIVER, "cuMemAlloc(%zu bytes): %s", bytes, rt_driver_error_name(c->drv, r));
    }
    b->ctx = c;
    b->bytes = bytes;
    b->next = c->buffers;
    if (c->buffers) c->buffers->prev = b;
    c->buffers = b;
    *out = b;
    return PATC_OK;
}

patc_status patc_buffer_upload(patc_buffer *b, const void *host, size_t bytes)
{
    if (!b) return PATC_ERR_INVALID;
    if (!host && bytes) return rt_fail(b->ctx, PATC_ERR_INVALID, "patc_buffer_upload: no host data");
    if (bytes > b->bytes)
        return rt_fail(b->ctx, PATC_ERR_SIZE, "upload of %zu bytes into a buffer of %zu", bytes, b->bytes);
    patc_status s = rt_need_device(b->ctx);
    return s != PATC_OK ? s : rt_drv_check(b->ctx, rt_driver_htod(b->ctx->drv, b->ptr, host, bytes), "cuMemcpyHtoD");
}

patc_status patc_buffer_download(patc_buffer *b, void *host, size_t bytes)
{
    if (!b) return PATC_ERR_INVALID;
    if (!host && bytes) return rt_fail(b->ctx, PATC_ERR_INVALID, "patc_buffer_download: no host memory");
    if (bytes > b->bytes)
        return rt_fail(b->ctx, PATC_ERR_SIZE, "download of %zu bytes from a buffer of %zu", bytes, b->bytes);
    patc_status s = rt_need_device(b->ctx);
    /* cuMemcpyDtoH waits for the legacy default stream only: work enqueued on a stream
     * of patc_set_stream (patc_reducer_enqueue) must be waited for first */
    if (s == PATC_OK && b->ctx->stream) s = rt_drv_check(b->ctx, rt_driver_sync(b->ctx->drv), "kernel execution");
    return s != PATC_OK ? s : rt_drv_check(b->ctx, rt_driver_dtoh(b->ctx->drv, host, b->ptr, bytes), "cuMemcpyDtoH");
}

size_t patc_buffer_size(const patc_buffer *b) { return b ? b->bytes : 0; }

unsigned long long patc_buffer_device_ptr(const patc_buffer *b) { return b ? (unsigned long long)b->ptr : 0; }

patc_status patc_buffer_wrap(patc_ctx *c, unsigned long long device_ptr, size_t bytes, patc_buffer **out)
{
    if (!c) return PATC_ERR_INVALID;
    if (!out || !device_ptr) return rt_fail(c, PATC_ERR_INVALID, "patc_buffer_wrap: no pointer or no output");
    *out = NULL;
    patc_status s = rt_need_device(c);
    if (s != PATC_OK) return s;
    patc_buffer *b = lang_calloc(1, sizeof *b);
    if (!b) return rt_fail(c, PATC_ERR_NO_MEMORY, "out of memory");
    b->ctx = c;
    b->ptr = device_ptr;
    b->bytes = bytes;
    b->wrapped = true;
    b->next = c->buffers;
    if (c->buffers) c->buffers->prev = b;
    c->buffers = b;
    *out = b;
    return PATC_OK;
}

patc_status patc_buffer_zero(patc_buffer *b)
{
    if (!b) return PATC_ERR_INVALID;
    patc_status s = rt_need_device(b->ctx);
    return s != PATC_OK ? s : rt_drv_check(b->ctx, rt_driver_memset0(b->ctx->drv, b->ptr, b->bytes), "cuMemsetD8");
}

void patc_buffer_free(patc_buffer *b)
{
    if (!b) return;
    patc_ctx *c = b->ctx;
    if (!b->wrapped && c->drv && rt_driver_bind(c->drv) == 0) rt_driver_mem_free(c->drv, b->ptr);
    if (b->prev) b->prev->next = b->next;
    else c->buffers = b->next;
    if (b->next) b->next->prev = b->prev;
    free(b);
}
