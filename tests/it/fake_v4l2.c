/* A webcam for tests, on a machine without one: loaded with LD_PRELOAD, it answers the
 * Video4Linux 2 calls a capture program makes on one device path as a UVC webcam does
 * (formats, sizes, rates, format and rate setting, memory-mapped buffers, streaming),
 * and plays frames from a file at 30 frames a second, round and round.
 *
 *   FAKE_V4L2_DEVICE  the path it answers for (every other path is the real one)
 *   FAKE_V4L2_FORMAT  YUYV (the default) or MJPG: the one format the camera offers
 *   FAKE_V4L2_FRAMES  YUYV: 640x480 frames, one after another; MJPG: each frame's
 *                     length (4 bytes, little-endian), then the frame
 *   FAKE_V4L2_STALL_AFTER  after this many frames the camera sends no more and reports
 *                     nothing (as a USB webcam short of bandwidth can): poll waits out its
 *                     time, and a DQBUF (or an unlimited poll) until the device is closed
 *
 * The buffers live in a memfd, so the program's own mmap of the device maps them for
 * real; only open, close, ioctl and poll are taken over. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/videodev2.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define WIDTH 640
#define HEIGHT 480
#define FRAME_BYTES (WIDTH * HEIGHT * 2)
#define MAX_BUFFERS 8

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int device_fd = -1;
static unsigned char *frames;
static size_t frames_bytes, frame_count, next_frame;
/* Where each frame starts in `frames`, and how long it is. */
static size_t *frame_start, *frame_length;
static __u32 pixel_format;
static unsigned buffer_count;
static int queued[MAX_BUFFERS];
static int streaming;
static unsigned sequence;
static struct timespec last_frame;
/* Frames sent before the camera stalls (0: never). */
static size_t stall_after;
/* What a UVC camera typically offers: sizes round 640x480, 30 and 15 fps. */
static const unsigned sizes[][2] = {{1280, 720}, {640, 480}, {320, 240}};

static int real_open(const char *path, int flags, mode_t mode) {
    static int (*next)(const char *, int, ...);
    if (!next) next = dlsym(RTLD_NEXT, "open");
    return next(path, flags, mode);
}

/* The C library's own close, for the files this fake opens itself (its `close` below
 * takes the lock, which is held here). */
static int real_close(int fd) {
    static int (*next)(int);
    if (!next) next = dlsym(RTLD_NEXT, "close");
    return next(fd);
}

static int is_device(const char *path) {
    const char *device = getenv("FAKE_V4L2_DEVICE");
    return device && path && strcmp(path, device) == 0;
}

/* Finds the frames in the mapped file: fixed-size YUYV ones, or length-prefixed MJPG
 * ones (a frame longer than a buffer is cut to it, as a driver would). */
static size_t index_frames(void) {
    size_t count = 0, at = 0;
    while (at < frames_bytes) {
        size_t length = FRAME_BYTES, start = at;
        if (pixel_format == V4L2_PIX_FMT_MJPEG) {
            if (at + 4 > frames_bytes) break;
            length = frames[at] | frames[at + 1] << 8 | frames[at + 2] << 16 |
                     (size_t)frames[at + 3] << 24;
            start = at + 4;
            if (length > frames_bytes - start) break;
        } else if (at + FRAME_BYTES > frames_bytes) {
            break;
        }
        frame_start = realloc(frame_start, (count + 1) * sizeof *frame_start);
        frame_length = realloc(frame_length, (count + 1) * sizeof *frame_length);
        frame_start[count] = start;
        frame_length[count] = length < FRAME_BYTES ? length : FRAME_BYTES;
        count++;
        at = start + length;
    }
    return count;
}

static int open_device(void) {
    const char *file = getenv("FAKE_V4L2_FRAMES");
    const char *format = getenv("FAKE_V4L2_FORMAT");
    int in = file ? real_open(file, O_RDONLY, 0) : -1;
    struct stat st;
    if (in < 0 || fstat(in, &st) != 0 || st.st_size < 4) {
        if (in >= 0) real_close(in);
        errno = ENODEV;
        return -1;
    }
    pthread_mutex_lock(&lock);
    if (device_fd >= 0) {
        pthread_mutex_unlock(&lock);
        real_close(in);
        errno = EBUSY; /* one program at a time, as a real camera */
        return -1;
    }
    pixel_format = format && strcmp(format, "MJPG") == 0 ? V4L2_PIX_FMT_MJPEG
                                                         : V4L2_PIX_FMT_YUYV;
    frames_bytes = (size_t)st.st_size;
    frames = mmap(NULL, frames_bytes, PROT_READ, MAP_PRIVATE, in, 0);
    real_close(in);
    frame_count = frames == MAP_FAILED ? 0 : index_frames();
    if (frame_count == 0) {
        if (frames != MAP_FAILED) munmap(frames, frames_bytes);
        frames = NULL;
        pthread_mutex_unlock(&lock);
        errno = ENODEV;
        return -1;
    }
    device_fd = memfd_create("fake-v4l2", MFD_CLOEXEC);
    const char *stall = getenv("FAKE_V4L2_STALL_AFTER");
    stall_after = stall ? strtoul(stall, NULL, 10) : 0;
    next_frame = 0;
    buffer_count = 0;
    streaming = 0;
    sequence = 0;
    int fd = device_fd;
    pthread_mutex_unlock(&lock);
    return fd;
}

/* open and open64 take the same arguments; a mode follows only when a file may be made. */
#define OPEN_WITH_MODE(path, flags)                                                    \
    do {                                                                               \
        mode_t mode = 0;                                                               \
        if ((flags) & (O_CREAT | O_TMPFILE)) {                                         \
            va_list args;                                                              \
            va_start(args, flags);                                                     \
            mode = va_arg(args, mode_t);                                               \
            va_end(args);                                                              \
        }                                                                              \
        return is_device(path) ? open_device() : real_open(path, flags, mode);         \
    } while (0)

int open(const char *path, int flags, ...) { OPEN_WITH_MODE(path, flags); }

int open64(const char *path, int flags, ...) { OPEN_WITH_MODE(path, flags); }

int close(int fd) {
    pthread_mutex_lock(&lock);
    if (fd == device_fd && fd >= 0) {
        device_fd = -1;
        if (frames) munmap(frames, frames_bytes);
        frames = NULL;
    }
    pthread_mutex_unlock(&lock);
    return real_close(fd);
}

static int fail(int error) {
    errno = error;
    return -1;
}

static int known_size(unsigned width, unsigned height) {
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (sizes[i][0] == width && sizes[i][1] == height) return 1;
    return 0;
}

/* Waits for the next frame's time (30 a second), without holding the lock: the
 * program's other ioctls (its GPU's) must not wait on the camera. */
static void wait_for_frame(void) {
    struct timespec now, due;
    pthread_mutex_lock(&lock);
    due = last_frame;
    pthread_mutex_unlock(&lock);
    due.tv_nsec += 33333333;
    if (due.tv_nsec >= 1000000000) {
        due.tv_sec += 1;
        due.tv_nsec -= 1000000000;
    }
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (last_frame.tv_sec != 0 &&
        (now.tv_sec < due.tv_sec || (now.tv_sec == due.tv_sec && now.tv_nsec < due.tv_nsec)))
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &due, NULL);
}

/* Writes the next frame into buffer `index`; its length in bytes. */
static size_t deliver(unsigned index) {
    size_t frame = next_frame++ % frame_count;
    clock_gettime(CLOCK_MONOTONIC, &last_frame);
    pwrite(device_fd, frames + frame_start[frame], frame_length[frame],
           (off_t)index * FRAME_BYTES);
    return frame_length[frame];
}

static int device_ioctl(unsigned long request, void *arg) {
    switch (request) {
    case VIDIOC_QUERYCAP: {
        struct v4l2_capability *cap = arg;
        memset(cap, 0, sizeof *cap);
        strcpy((char *)cap->driver, "uvcvideo");
        strcpy((char *)cap->card, "Fake Webcam");
        cap->capabilities = cap->device_caps = V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING;
        return 0;
    }
    case VIDIOC_ENUM_FMT: {
        struct v4l2_fmtdesc *desc = arg;
        if (desc->index != 0 || desc->type != V4L2_BUF_TYPE_VIDEO_CAPTURE) return fail(EINVAL);
        strcpy((char *)desc->description,
               pixel_format == V4L2_PIX_FMT_MJPEG ? "Motion-JPEG" : "YUYV 4:2:2");
        desc->flags = pixel_format == V4L2_PIX_FMT_MJPEG ? V4L2_FMT_FLAG_COMPRESSED : 0;
        desc->pixelformat = pixel_format;
        return 0;
    }
    case VIDIOC_ENUM_FRAMESIZES: {
        struct v4l2_frmsizeenum *size = arg;
        if (size->pixel_format != pixel_format ||
            size->index >= sizeof sizes / sizeof sizes[0])
            return fail(EINVAL);
        size->type = V4L2_FRMSIZE_TYPE_DISCRETE;
        size->discrete.width = sizes[size->index][0];
        size->discrete.height = sizes[size->index][1];
        return 0;
    }
    case VIDIOC_ENUM_FRAMEINTERVALS: {
        struct v4l2_frmivalenum *interval = arg;
        if (interval->pixel_format != pixel_format ||
            !known_size(interval->width, interval->height) || interval->index > 1)
            return fail(EINVAL);
        interval->type = V4L2_FRMIVAL_TYPE_DISCRETE;
        interval->discrete.numerator = 1;
        interval->discrete.denominator = interval->index == 0 ? 15 : 30;
        return 0;
    }
    case VIDIOC_S_FMT: {
        struct v4l2_format *format = arg;
        if (format->type != V4L2_BUF_TYPE_VIDEO_CAPTURE || streaming) return fail(EINVAL);
        /* Frames are only recorded at 640x480: any other size is answered with it, as a
         * driver answers with the nearest it has. */
        format->fmt.pix.width = WIDTH;
        format->fmt.pix.height = HEIGHT;
        format->fmt.pix.pixelformat = pixel_format;
        format->fmt.pix.field = V4L2_FIELD_NONE;
        format->fmt.pix.bytesperline = pixel_format == V4L2_PIX_FMT_MJPEG ? 0 : WIDTH * 2;
        format->fmt.pix.sizeimage = FRAME_BYTES;
        format->fmt.pix.colorspace = V4L2_COLORSPACE_SRGB;
        return 0;
    }
    case VIDIOC_S_PARM: {
        struct v4l2_streamparm *parm = arg;
        struct v4l2_fract *time = &parm->parm.capture.timeperframe;
        if (parm->type != V4L2_BUF_TYPE_VIDEO_CAPTURE) return fail(EINVAL);
        if (time->numerator == 0 || time->denominator / time->numerator > 22) {
            time->numerator = 1;
            time->denominator = 30;
        } else {
            time->numerator = 1;
            time->denominator = 15;
        }
        parm->parm.capture.capability = V4L2_CAP_TIMEPERFRAME;
        return 0;
    }
    case VIDIOC_REQBUFS: {
        struct v4l2_requestbuffers *request = arg;
        if (request->memory != V4L2_MEMORY_MMAP || streaming) return fail(EINVAL);
        if (request->count > MAX_BUFFERS) request->count = MAX_BUFFERS;
        buffer_count = request->count;
        memset(queued, 0, sizeof queued);
        if (ftruncate(device_fd, (off_t)buffer_count * FRAME_BYTES) != 0) return fail(ENOMEM);
        return 0;
    }
    case VIDIOC_QUERYBUF:
    case VIDIOC_QBUF: {
        struct v4l2_buffer *buffer = arg;
        if (buffer->index >= buffer_count || buffer->memory != V4L2_MEMORY_MMAP)
            return fail(EINVAL);
        buffer->length = FRAME_BYTES;
        buffer->m.offset = buffer->index * FRAME_BYTES;
        if (request == VIDIOC_QBUF) queued[buffer->index] = 1;
        return 0;
    }
    case VIDIOC_DQBUF: {
        struct v4l2_buffer *buffer = arg;
        if (!streaming) return fail(EINVAL);
        for (unsigned i = 0; i < buffer_count; i++) {
            if (!queued[i]) continue;
            queued[i] = 0;
            buffer->bytesused = (__u32)deliver(i);
            buffer->index = i;
            buffer->length = FRAME_BYTES;
            buffer->m.offset = i * FRAME_BYTES;
            buffer->field = V4L2_FIELD_NONE;
            buffer->sequence = sequence++;
            buffer->flags = V4L2_BUF_FLAG_MAPPED | V4L2_BUF_FLAG_DONE;
            return 0;
        }
        return fail(EAGAIN); /* nothing queued: a blocking driver would wait for ever */
    }
    case VIDIOC_STREAMON:
        if (buffer_count == 0) return fail(EINVAL);
        streaming = 1;
        return 0;
    case VIDIOC_STREAMOFF:
        streaming = 0;
        memset(queued, 0, sizeof queued);
        return 0;
    default:
        return fail(ENOTTY);
    }
}

/* Whether the camera has stopped sending (the lock held). */
static int stalled(void) { return stall_after && next_frame >= stall_after; }

/* A stalled camera's DQBUF: nothing comes, until the device is closed. */
static void wait_while_stalled(int fd) {
    for (;;) {
        pthread_mutex_lock(&lock);
        int waiting = fd == device_fd && stalled();
        pthread_mutex_unlock(&lock);
        if (!waiting) return;
        usleep(20000);
    }
}

int ioctl(int fd, unsigned long request, ...) {
    static int (*next)(int, unsigned long, ...);
    va_list args;
    va_start(args, request);
    void *arg = va_arg(args, void *);
    va_end(args);
    if (fd >= 0 && fd == device_fd && request == VIDIOC_DQBUF) {
        wait_for_frame();
        wait_while_stalled(fd);
    }
    pthread_mutex_lock(&lock);
    if (fd >= 0 && fd == device_fd) {
        int result = device_ioctl(request, arg);
        pthread_mutex_unlock(&lock);
        return result;
    }
    pthread_mutex_unlock(&lock);
    if (!next) next = dlsym(RTLD_NEXT, "ioctl");
    return next(fd, request, arg);
}

/* The camera is readable when its next frame is due; a stalled one never is. */
int poll(struct pollfd *fds, nfds_t count, int timeout) {
    static int (*next)(struct pollfd *, nfds_t, int);
    if (!next) next = dlsym(RTLD_NEXT, "poll");
    pthread_mutex_lock(&lock);
    int camera = count == 1 && fds[0].fd >= 0 && fds[0].fd == device_fd;
    int dead = camera && stalled();
    pthread_mutex_unlock(&lock);
    if (!camera) return next(fds, count, timeout);
    if (dead && timeout < 0) {
        wait_while_stalled(fds[0].fd);
        return next(fds, count, 0);
    }
    if (dead) {
        if (timeout > 0) usleep((useconds_t)timeout * 1000);
        fds[0].revents = 0;
        return 0;
    }
    wait_for_frame();
    fds[0].revents = fds[0].events & (POLLIN | POLLRDNORM);
    return 1;
}
