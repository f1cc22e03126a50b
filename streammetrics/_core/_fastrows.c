/*
 * The one-value hot path of the aggregators, compiled (optional: the pure-Python closure in
 * streammetrics/aggregation/metrics.py does the same when this module is not built).
 *
 * A ValueBuffer is installed as a metric's instance ``update``. Called with one finite Python
 * float (and no weight), it stores the value in a C array and returns the metric: no Python frame
 * runs, which is what a per-row call costs most. Called with anything else, it forwards the call,
 * unchanged, to the class's ``update``. When the array reaches ``limit`` values it calls ``flush``,
 * which folds the values into the metric's state (``peek`` then ``drop``); a flush that fails
 * leaves the values in the array, which then grows, so that no accepted row is lost.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <math.h>
#include <string.h>

typedef struct {
    PyObject_HEAD
    PyObject *owner;    /* returned by an accepted value: update() returns the metric */
    PyObject *fallback; /* the class's update, bound: called for anything but one float */
    PyObject *flush;    /* called with no arguments when the array holds limit values */
    double *data;
    Py_ssize_t n;
    Py_ssize_t capacity;
    Py_ssize_t limit;
    vectorcallfunc vectorcall;
} ValueBuffer;

static int
grow(ValueBuffer *self)
{
    Py_ssize_t capacity = self->capacity < 8 ? 16 : self->capacity * 2;
    double *data = PyMem_Realloc(self->data, (size_t)capacity * sizeof(double));
    if (data == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    self->data = data;
    self->capacity = capacity;
    return 0;
}

static PyObject *
buffer_vectorcall(ValueBuffer *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (self->owner == NULL) { /* made by __new__ alone: nothing to store into or forward to */
        PyErr_SetString(PyExc_TypeError, "ValueBuffer: not initialized (call it with owner, fallback, flush, limit)");
        return NULL;
    }
    if (kwnames == NULL && (nargs == 1 || (nargs == 2 && args[1] == Py_None))
        && PyFloat_CheckExact(args[0])) {
        double x = PyFloat_AS_DOUBLE(args[0]);
        if (isfinite(x)) {
            if (self->n == self->capacity && grow(self) < 0) {
                return NULL;
            }
            self->data[self->n++] = x;
            if (self->n >= self->limit) {
                /* the value is kept whatever the flush does: it fails, the value stays */
                PyObject *done = PyObject_CallNoArgs(self->flush);
                if (done == NULL) {
                    return NULL;
                }
                Py_DECREF(done);
            }
            return Py_NewRef(self->owner);
        }
    }
    return PyObject_Vectorcall(self->fallback, args, nargsf, kwnames);
}

static int
buffer_init(ValueBuffer *self, PyObject *args, PyObject *kwargs)
{
    static char *names[] = {"owner", "fallback", "flush", "limit", NULL};
    PyObject *owner, *fallback, *flush;
    Py_ssize_t limit;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOn", names, &owner, &fallback, &flush, &limit)) {
        return -1;
    }
    if (limit < 1) {
        PyErr_SetString(PyExc_ValueError, "limit must be at least 1");
        return -1;
    }
    double *data = PyMem_Realloc(self->data, (size_t)limit * sizeof(double));
    if (data == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    self->data = data;
    self->capacity = limit;
    self->limit = limit;
    self->n = 0;
    Py_XSETREF(self->owner, Py_NewRef(owner));
    Py_XSETREF(self->fallback, Py_NewRef(fallback));
    Py_XSETREF(self->flush, Py_NewRef(flush));
    return 0;
}

static PyObject *
buffer_new(PyTypeObject *type, PyObject *Py_UNUSED(args), PyObject *Py_UNUSED(kwargs))
{
    ValueBuffer *self = (ValueBuffer *)type->tp_alloc(type, 0);
    if (self != NULL) {
        self->vectorcall = (vectorcallfunc)buffer_vectorcall;
    }
    return (PyObject *)self;
}

static int
buffer_traverse(ValueBuffer *self, visitproc visit, void *arg)
{
    Py_VISIT(self->owner);
    Py_VISIT(self->fallback);
    Py_VISIT(self->flush);
    return 0;
}

static int
buffer_clear(ValueBuffer *self)
{
    Py_CLEAR(self->owner);
    Py_CLEAR(self->fallback);
    Py_CLEAR(self->flush);
    return 0;
}

static void
buffer_dealloc(ValueBuffer *self)
{
    PyObject_GC_UnTrack(self);
    buffer_clear(self);
    PyMem_Free(self->data);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static Py_ssize_t
buffer_length(ValueBuffer *self)
{
    return self->n;
}

static PyObject *
buffer_peek(ValueBuffer *self, PyObject *Py_UNUSED(ignored))
{
    return PyBytes_FromStringAndSize((const char *)self->data, self->n * (Py_ssize_t)sizeof(double));
}

static PyObject *
buffer_drop(ValueBuffer *self, PyObject *arg)
{
    Py_ssize_t k = PyLong_AsSsize_t(arg);
    if (k == -1 && PyErr_Occurred()) {
        return NULL;
    }
    if (k < 0 || k > self->n) {
        PyErr_Format(PyExc_ValueError, "cannot drop %zd of %zd values", k, self->n);
        return NULL;
    }
    if (k == 0) {
        Py_RETURN_NONE;
    }
    /* values appended while the first k were folded in (another thread) move to the front */
    memmove(self->data, self->data + k, (size_t)(self->n - k) * sizeof(double));
    self->n -= k;
    Py_RETURN_NONE;
}

static PyMethodDef buffer_methods[] = {
    {"peek", (PyCFunction)buffer_peek, METH_NOARGS,
     "peek()\n--\n\nThe buffered values, as the bytes of float64s, left in the buffer."},
    {"drop", (PyCFunction)buffer_drop, METH_O,
     "drop(k)\n--\n\nForget the first k buffered values (once they are folded into the state)."},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef buffer_members[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(ValueBuffer, vectorcall), READONLY, NULL},
    {"limit", T_PYSSIZET, offsetof(ValueBuffer, limit), READONLY, "Values buffered before a flush."},
    {NULL, 0, 0, 0, NULL},
};

static PySequenceMethods buffer_as_sequence = {
    .sq_length = (lenfunc)buffer_length,
};

PyDoc_STRVAR(buffer_doc,
"ValueBuffer(owner, fallback, flush, limit)\n--\n\n"
"A metric's ``update`` for one finite float at a time: the value is stored and ``owner`` is\n"
"returned; any other call is ``fallback(*args, **kwargs)``. ``flush()`` is called when\n"
"``limit`` values are stored.");

static PyTypeObject ValueBufferType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "streammetrics._core._fastrows.ValueBuffer",
    .tp_basicsize = sizeof(ValueBuffer),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = buffer_doc,
    .tp_new = buffer_new,
    .tp_init = (initproc)buffer_init,
    .tp_dealloc = (destructor)buffer_dealloc,
    .tp_traverse = (traverseproc)buffer_traverse,
    .tp_clear = (inquiry)buffer_clear,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(ValueBuffer, vectorcall),
    .tp_methods = buffer_methods,
    .tp_members = buffer_members,
    .tp_as_sequence = &buffer_as_sequence,
};

static struct PyModuleDef fastrows_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "streammetrics._core._fastrows",
    .m_doc = "The aggregators' one-value update, compiled (optional).",
    .m_size = -1,
};

PyMODINIT_FUNC
PyInit__fastrows(void)
{
    if (PyType_Ready(&ValueBufferType) < 0) {
        return NULL;
    }
    PyObject *module = PyModule_Create(&fastrows_module);
    if (module == NULL) {
        return NULL;
    }
    Py_INCREF(&ValueBufferType);
    if (PyModule_AddObject(module, "ValueBuffer", (PyObject *)&ValueBufferType) < 0) {
        Py_DECREF(&ValueBufferType);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
